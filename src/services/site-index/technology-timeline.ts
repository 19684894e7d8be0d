import type { SiteTechnologyEntity, TechnologyChangeKind } from '../../storage/entities';
import type { SiteObservation } from './site-index.service';

/** Paths kept per technology as its evidence, and the longest path kept. */
const MAX_EVIDENCE_PATHS = 20;
const MAX_PATH = 100;
/** Evidence of rows older than the timeline whose page is unknown: only a crawl can contradict it. */
export const SOME_CRAWLED_PAGE = '*';

/** A change an analysis makes to a site's technologies (the change log's row, before its id). */
export interface PlannedChange {
  slug: string;
  name: string;
  kind: TechnologyChangeKind;
  fromVersion: string;
  toVersion: string;
}

/** What the timeline writes for one analysis of one site (see planTimeline). */
export interface TimelinePlan {
  /** Per detected slug: the evidence its row now holds (JSON), written with the row's upsert. */
  evidence: Map<string, string>;
  /** Rows of technologies the analysis did not find whose evidence shrank, or which it removes. */
  undetected: { id: number; evidencePaths: string; removed: boolean }[];
  changes: PlannedChange[];
  /**
   * Versions whose sighting this analysis writes (new ones start here, known ones were last seen
   * here). A technology's current version, unchanged, is not written: its last sighting is the
   * technology's own (site_technologies.confirmed_at), which the index writes anyway.
   */
  versions: { slug: string; version: string }[];
  /** Versions that stopped being current: their last sighting is the technology's previous one. */
  superseded: { slug: string; version: string; lastSeenAt: Date }[];
}

/**
 * The timeline rule, "no false removals": a technology's evidence is the set of page paths whose
 * latest reading found it. An analysis replaces the membership of the pages it read (found there:
 * in; read and not found: out) and leaves the other paths alone. A technology is removed when its
 * evidence becomes empty, that is when the analysis read every page where it had been found and
 * found it on none; a one-page analysis cannot remove what a crawl saw on another page, and a page
 * that failed was not read. Rows older than the timeline whose page is unknown hold '*', which any
 * analysis of more than one page reads. A removed technology found again is added again.
 */
export function planTimeline(
  prior: readonly SiteTechnologyEntity[],
  observation: SiteObservation,
): TimelinePlan {
  const read = pathsRead(observation);
  const firstPath = observation.pages.length ? pathOf(observation.pages[0].url) : '/';
  const seenOn = new Map<string, string[]>();
  for (const page of observation.pages) {
    const path = pathOf(page.url);
    for (const tech of page.technologies) {
      const paths = seenOn.get(tech.slug) ?? [];
      if (!paths.includes(path)) paths.push(path);
      seenOn.set(tech.slug, paths);
    }
  }
  const rows = new Map(prior.map((row) => [row.slug, row]));
  const plan: TimelinePlan = {
    evidence: new Map(),
    undetected: [],
    changes: [],
    versions: [],
    superseded: [],
  };
  for (const tech of observation.technologies) {
    const row = rows.get(tech.slug);
    // A technology of the merged result found on no single page (a rendered page's finding) was
    // seen on the first page, the one rendered.
    const seen = seenOn.get(tech.slug) ?? [firstPath];
    const kept = row?.live ? pathsOf(row.evidencePaths).filter((p) => !read.has(p)) : [];
    plan.evidence.set(
      tech.slug,
      JSON.stringify(bounded([...seen, ...kept.filter((p) => !seen.includes(p))])),
    );
    const toVersion = tech.version.slice(0, 60);
    // The version the index keeps for it after this analysis (upsertTechnologies: the best one seen).
    const current = toVersion || row?.version || '';
    const unchanged = row?.live && current === row.version ? current : null;
    for (const version of new Set([...tech.versions.map((v) => v.slice(0, 60)), toVersion]))
      if (version && version !== unchanged) plan.versions.push({ slug: tech.slug, version });
    if (row?.version && current !== row.version)
      plan.superseded.push({ slug: tech.slug, version: row.version, lastSeenAt: row.confirmedAt });
    if (!row || !row.live) {
      plan.changes.push({ slug: tech.slug, name: tech.name, kind: 'added', fromVersion: '', toVersion });
    } else if (toVersion && row.version && toVersion !== row.version) {
      plan.changes.push({
        slug: tech.slug,
        name: tech.name,
        kind: 'version',
        fromVersion: row.version,
        toVersion,
      });
    }
  }
  const detected = new Set(observation.technologies.map((t) => t.slug));
  for (const row of prior) {
    if (!row.live || detected.has(row.slug)) continue;
    // A row written without evidence (not by an analysis) counts as seen on some crawled page.
    const stored = pathsOf(row.evidencePaths);
    const before = stored.length ? stored : [SOME_CRAWLED_PAGE];
    const after = before.filter((p) => !read.has(p));
    if (after.length === before.length && stored.length) continue;
    const removed = after.length === 0;
    // The evidence a removed technology last had stays, saying where it was seen last.
    plan.undetected.push({
      id: row.id,
      evidencePaths: JSON.stringify(removed ? before : after),
      removed,
    });
    if (removed)
      plan.changes.push({
        slug: row.slug,
        name: row.name,
        kind: 'removed',
        fromVersion: row.version,
        toVersion: '',
      });
  }
  return plan;
}

/** The evidence paths an analysis read: its pages', and with more than one page '*' (some crawled page). */
export function pathsRead(observation: Pick<SiteObservation, 'pages'>): Set<string> {
  const read = new Set(observation.pages.map((p) => pathOf(p.url)));
  if (observation.pages.length > 1) read.add(SOME_CRAWLED_PAGE);
  return read;
}

/** A page URL's path as evidence: the path without query, bounded. */
export function pathOf(url: string): string {
  try {
    return new URL(url).pathname.slice(0, MAX_PATH) || '/';
  } catch {
    return '/';
  }
}

/** The paths of an evidence column (malformed JSON: none). */
export function pathsOf(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** At most MAX_EVIDENCE_PATHS paths, those just seen first; the column holds 1000 characters. */
export function bounded(paths: string[]): string[] {
  const out: string[] = [];
  let length = 2;
  for (const path of paths.slice(0, MAX_EVIDENCE_PATHS)) {
    length += JSON.stringify(path).length + 1;
    if (length > 1000) break;
    out.push(path);
  }
  return out;
}
