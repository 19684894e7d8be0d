import { z } from 'zod';
import { ValidationError } from '../../errors';
import { field } from '../platform/request-schema';
import { siteKeyOf } from '../site-index/site-key';

export const CHANGE_KINDS = ['added', 'removed', 'version', 'vulnerability'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];
/**
 * The kinds a filter without `kinds` covers: what analyses record. `vulnerability` (an extension,
 * recorded for monitored sites when imported data makes them affected) only when named, so
 * readers that know the first three kinds never meet it.
 */
export const DEFAULT_CHANGE_KINDS: readonly ChangeKind[] = ['added', 'removed', 'version'];

export const CHANGES_LIMIT_DEFAULT = 100;
export const CHANGES_LIMIT_MAX = 1000;
/** Latest time accepted by since/until (UNIX seconds, the year 2100). */
const MAX_SECONDS = 4_102_444_800;

/** A requested site: a registrable domain covers its subdomains, a host name (or host:port) only itself. */
export interface SiteFilter {
  /** The index key (host without www., with a port when one was given). */
  hostname: string;
  /** Match every site whose registrable domain is this (null: match `hostname` only). */
  domain: string | null;
}

export function siteFilterOf(value: string): SiteFilter {
  let key;
  try {
    if (/[/?#@\s]/.test(value)) throw new Error('not a host');
    key = siteKeyOf(`http://${value}`);
  } catch {
    throw new ValidationError('domains', `domains: ${value} is not a domain name`);
  }
  const hasPort = key.hostname.includes(':') && !key.hostname.startsWith('[');
  return { hostname: key.hostname, domain: !key.isSubdomain && !hasPort ? key.domain : null };
}

/** The filter of the change feed and of the subscription (GraphQL's ChangeFilter input). */
export const ChangeFilterFields = {
  domains: field.list(field.item(260).transform(field.parsedBy(siteFilterOf)), {
    max: 100,
    description:
      'Up to 100 comma-separated sites: a registrable domain (example.com) covers the domain and its ' +
      'subdomains; a host name (shop.example.com, or host:port) only that site',
  }),
  technologies: field.uniqueList(
    field.item(120, { pattern: /^[a-z0-9][a-z0-9._+-]*$/, patternText: 'must be a technology slug' }),
    { max: 100, description: 'Up to 100 technology slugs (as in /v2/technologies/)' },
  ),
  categories: field.uniqueList(
    field.item(120, { pattern: /^[a-z0-9][a-z0-9._+-]*$/, patternText: 'must be a category slug' }),
    {
      max: 20,
      description:
        'Up to 20 category slugs: changes of any technology in them (together with `technologies`: ' +
        'either matches)',
    },
  ),
  kinds: field.uniqueList(
    field.item(16, {
      pattern: /^(added|removed|version|vulnerability)$/,
      patternText: 'must be added, removed, version or vulnerability',
    }),
    {
      max: 4,
      description:
        'Kinds of change: added, removed, version (the default: these three), and vulnerability (an extension: ' +
        'only when named)',
    },
  ),
  since: field.integer({
    min: 0,
    max: MAX_SECONDS,
    description: 'Only changes at or after this time (UNIX seconds)',
  }),
  until: field.integer({
    min: 0,
    max: MAX_SECONDS,
    description: 'Only changes before this time (UNIX seconds)',
  }),
};

export const ChangeFilterSchema = z.object(ChangeFilterFields);
export type ChangeFilterInput = z.output<typeof ChangeFilterSchema>;

/** GET /v2/changes/ (and GraphQL changes(filter, first, after), whose `first` is REST's `limit`). */
export const ChangesRequest = z.object({
  ...ChangeFilterFields,
  first: field.integer({
    rest: 'limit',
    min: 1,
    max: CHANGES_LIMIT_MAX,
    default: CHANGES_LIMIT_DEFAULT,
    description: 'Changes per page, 1 to 1000',
  }),
  after: field.text({
    maxLength: 12,
    pattern: /^[0-9]+$/,
    patternText: 'must be a moreAfter value (or a change id) returned by this endpoint',
    description: 'Continue after this change: the moreAfter of a previous page, or any change id',
  }),
});
export type ChangesInput = z.output<typeof ChangesRequest>;

export const ChangeShape = z.strictObject({
  id: z.number().int().describe('The change id: it only grows, so `after=<id>` reads what came later'),
  domain: z
    .string()
    .describe('The site (its index key: host without www., with a port when not the default)'),
  technology: z.string().describe('Technology slug'),
  name: z.string().describe('Technology name'),
  kind: z
    .enum(CHANGE_KINDS)
    .describe(
      'added, removed, or version (the version changed); vulnerability (an extension, only when asked for): ' +
        'imported data makes the version on the site affected',
    ),
  fromVersion: z.string().optional().describe('The version before (removed and version changes, when known)'),
  toVersion: z.string().optional().describe('The version after (added and version changes, when known)'),
  at: z.number().int().describe('UNIX seconds of the analysis that saw the change'),
  fingerprintsVersion: z
    .string()
    .optional()
    .describe('The fingerprint version of that analysis (absent for changes backfilled from older history)'),
  vulnerability: z
    .strictObject({
      id: z.string().describe('The vulnerability record id (CVE-…, GHSA-…)'),
      aliases: z.array(z.string()).describe('Its other ids'),
      severity: z.string().optional().describe('CVSS severity, when the record gives it'),
      score: z.number().optional().describe('CVSS base score, when the record gives it'),
      match: z
        .enum(['certain', 'possible'])
        .describe('certain: the detected version (toVersion) is affected; possible: no version was detected'),
    })
    .optional()
    .describe('vulnerability changes only: what affects the technology'),
});

/** GET /v2/changes/: one page of the change log, oldest first. */
export const ChangesPageShape = z.strictObject({
  changes: z.array(ChangeShape).describe('Changes in id order (the order they were recorded)'),
  moreAfter: z
    .string()
    .optional()
    .describe('Present only when more changes match: pass it as `after` to read on'),
});

/** A change as the service returns it. */
export interface ChangeSource {
  id: number;
  hostname: string;
  slug: string;
  name: string;
  kind: ChangeKind;
  fromVersion: string;
  toVersion: string;
  fingerprintsVersion: string;
  /** UNIX milliseconds. */
  at: number;
  /** vulnerability changes: what affects the technology. */
  vulnerability?: ChangeVulnerability;
}

/** The vulnerability of a `vulnerability` change. */
export interface ChangeVulnerability {
  id: string;
  aliases: string[];
  severity?: string;
  score?: number;
  match: 'certain' | 'possible';
}

/** The stored JSON of a change's vulnerability (null, or not one: none). */
export function changeVulnerabilityOf(json: string | null | undefined): ChangeVulnerability | undefined {
  if (!json) return undefined;
  try {
    const value = JSON.parse(json) as ChangeVulnerability;
    return typeof value?.id === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

export interface ChangePageSource {
  changes: ChangeSource[];
  moreAfter: string | null;
}

/** GET /v2/sites/{domain} and GraphQL site(domain). */
export const SiteTimelineRequest = z.object({
  domain: field.text({
    maxLength: 260,
    required: true,
    description: 'The site: its host name (www. is the same site), with a port when not the default',
  }),
});

const SightingShape = z.strictObject({
  version: z.string(),
  firstSeenAt: z.number().int().describe('UNIX seconds'),
  lastSeenAt: z.number().int().describe('UNIX seconds'),
});

const TechnologyTimelineShape = z.strictObject({
  technology: z.string().describe('Technology slug'),
  name: z.string(),
  version: z.string().optional().describe('Best known version'),
  live: z
    .boolean()
    .describe(
      'On the site now: false once an analysis read every page where it had been found and found it on none',
    ),
  firstSeenAt: z.number().int().describe('UNIX seconds, first seen'),
  lastSeenAt: z.number().int().describe('UNIX seconds, last seen'),
  removedAt: z.number().int().optional().describe('UNIX seconds of its last removal (absent: never removed)'),
  evidencePaths: z
    .array(z.string())
    .describe('Paths of the pages whose latest reading found it ("*": some page of an older crawl)'),
  versions: z.array(SightingShape).describe('Versions seen, in the order first seen'),
});

/** GET /v2/sites/{domain}: a site of the index with its technologies' timelines (an extension path). */
export const SiteTimelineShape = z.strictObject({
  domain: z.string().describe('The site (host without www., with a port when not the default)'),
  registrableDomain: z.string(),
  firstSeenAt: z.number().int().describe('UNIX seconds, first analysed'),
  lastAnalyzedAt: z.number().int().describe('UNIX seconds, last analysed'),
  technologies: z
    .array(TechnologyTimelineShape)
    .describe('Every technology ever seen on it, live ones first'),
});

/** The site as GraphQL types it (IndexedSite), as far as the published shape reads it. */
export interface SiteTimelineSource {
  domain: string;
  registrableDomain: string;
  firstSeenAt: number;
  lastAnalyzedAt: number;
  technologies: readonly {
    slug: string;
    name: string;
    version: string | null;
    live: boolean;
    firstSeenAt: number;
    lastSeenAt: number;
    removedAt: number | null;
    evidencePaths: string[];
    versions: readonly { version: string; firstSeenAt: number; lastSeenAt: number }[];
  }[];
}

export function toSiteTimeline(site: SiteTimelineSource): z.output<typeof SiteTimelineShape> {
  return {
    domain: site.domain,
    registrableDomain: site.registrableDomain,
    firstSeenAt: site.firstSeenAt,
    lastAnalyzedAt: site.lastAnalyzedAt,
    technologies: site.technologies.map((t) => ({
      technology: t.slug,
      name: t.name,
      ...(t.version ? { version: t.version } : {}),
      live: t.live,
      firstSeenAt: t.firstSeenAt,
      lastSeenAt: t.lastSeenAt,
      ...(t.removedAt !== null ? { removedAt: t.removedAt } : {}),
      evidencePaths: t.evidencePaths,
      versions: t.versions.map((v) => ({
        version: v.version,
        firstSeenAt: v.firstSeenAt,
        lastSeenAt: v.lastSeenAt,
      })),
    })),
  };
}
