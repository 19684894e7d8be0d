import type { DetectedTechnology } from '../../detection';
import type { SiteTechnologyEntity } from '../../storage/entities';
import type { LiveVersionRow } from '../../storage/technology-timeline.repository';
import { inVersionOrder } from '../vulns/version-compare';
import type { SiteObservation } from './site-index.service';
import { bounded, pathOf, pathsOf, pathsRead, SOME_CRAWLED_PAGE } from './technology-timeline';

/** The width of the version columns. */
const MAX_VERSION = 60;

/** A version of a technology on a site now, with the pages whose latest reading found it (JSON). */
export type LiveVersion = Omit<LiveVersionRow, 'slug'>;

/**
 * The versions of each technology a site runs now, after one analysis: the timeline's rule ("no
 * false removals", technology-timeline.ts) applied to each version. A version's evidence is the set
 * of page paths whose latest reading found the technology at that version; an analysis replaces the
 * membership of the pages it read and leaves the others alone, so a one-page analysis does not drop
 * the jQuery a crawl saw on another page, and a re-crawl that no longer finds a version drops it.
 *
 * - A page where the technology was found without a version says nothing about which one runs
 *   there: its membership is left as it was (as site_technologies.version keeps the best known
 *   version then).
 * - A version that is a dotted prefix of another one on the site (`3.6` beside `3.6.0`) is the same
 *   release read less precisely, and is not a version of its own.
 * - A live technology with no version left has the one row '' (exposure: possibly affected); a
 *   technology the analysis removes (or that is not live) has none.
 *
 * `removed`: the slugs the timeline removes with this analysis. Returns, per technology whose rows
 * change, its rows after the analysis (empty: none); technologies left as they were are not listed.
 * A live technology without stored rows (written before this table, or not by an analysis) starts
 * from its best version and its own evidence, as the migration backfilled them.
 */
export function planLiveVersions(
  prior: readonly SiteTechnologyEntity[],
  stored: readonly LiveVersionRow[],
  observation: SiteObservation,
  removed: ReadonlySet<string>,
): Map<string, LiveVersion[]> {
  const read = pathsRead(observation);
  const storedBySlug = new Map<string, LiveVersion[]>();
  for (const row of stored) storedBySlug.set(row.slug, [...(storedBySlug.get(row.slug) ?? []), row]);
  const seen = new Map<string, Map<string, string[]>>();
  const quiet = new Map<string, Set<string>>();
  const sight = (slug: string, version: string, path: string) => {
    const versions = seen.get(slug) ?? new Map<string, string[]>();
    const paths = versions.get(version) ?? [];
    if (!paths.includes(path)) paths.push(path);
    versions.set(version, paths);
    seen.set(slug, versions);
  };
  for (const page of observation.pages) {
    const path = pathOf(page.url);
    for (const tech of page.technologies) {
      const versions = versionsOf(tech);
      if (versions.length === 0) quiet.set(tech.slug, (quiet.get(tech.slug) ?? new Set()).add(path));
      for (const version of versions) sight(tech.slug, version, path);
    }
  }
  // A version of the merged result found on no single page (a rendered page's) was on the first page.
  const firstPath = observation.pages.length ? pathOf(observation.pages[0].url) : '/';
  for (const tech of observation.technologies)
    for (const version of versionsOf(tech))
      if (!seen.get(tech.slug)?.has(version)) sight(tech.slug, version, firstPath);

  const rows = new Map(prior.map((row) => [row.slug, row]));
  const slugs = new Set([
    ...observation.technologies.map((t) => t.slug),
    ...prior.filter((row) => row.live).map((row) => row.slug),
  ]);
  const plan = new Map<string, LiveVersion[]>();
  for (const slug of slugs) {
    const row = rows.get(slug);
    const before = storedBySlug.get(slug) ?? [];
    let after: LiveVersion[] = [];
    if (!removed.has(slug)) {
      const silent = quiet.get(slug) ?? new Set<string>();
      // A page read that found the technology without a version keeps its membership; so does a
      // row's '*' while the crawl found the technology without one.
      const keeps = (path: string) =>
        !read.has(path) || silent.has(path) || (path === SOME_CRAWLED_PAGE && silent.size > 0);
      const evidence = new Map<string, string[]>();
      for (const [version, paths] of row?.live ? priorVersions(row, before) : [])
        evidence.set(version, paths.filter(keeps));
      for (const [version, paths] of seen.get(slug) ?? [])
        evidence.set(version, [...paths, ...(evidence.get(version) ?? []).filter((p) => !paths.includes(p))]);
      const current = [...evidence].filter(([, paths]) => paths.length > 0).map(([version]) => version);
      after = inVersionOrder(
        current.filter((v) => !current.some((other) => other !== v && other.startsWith(`${v}.`))),
      ).map((version) => ({ version, evidencePaths: JSON.stringify(bounded(evidence.get(version)!)) }));
      if (after.length === 0) after = [{ version: '', evidencePaths: '[]' }];
    }
    if (!sameRows(before, after)) plan.set(slug, after);
  }
  return plan;
}

/** A detected technology's distinct versions, as the columns hold them. */
function versionsOf(tech: Pick<DetectedTechnology, 'version' | 'versions'>): string[] {
  return [...new Set([...tech.versions, tech.version].map((v) => v.slice(0, MAX_VERSION)))].filter(Boolean);
}

/**
 * The stored versions of a live technology and their evidence ('' is no version); evidence written
 * empty (not by an analysis) counts as some crawled page, as the timeline reads it.
 */
function priorVersions(row: SiteTechnologyEntity, stored: readonly LiveVersion[]): [string, string[]][] {
  const pages = (json: string) => {
    const paths = pathsOf(json);
    return paths.length > 0 ? paths : [SOME_CRAWLED_PAGE];
  };
  if (stored.length === 0) return row.version ? [[row.version, pages(row.evidencePaths)]] : [];
  return stored.filter((v) => v.version !== '').map((v) => [v.version, pages(v.evidencePaths)]);
}

function sameRows(a: readonly LiveVersion[], b: readonly LiveVersion[]): boolean {
  const key = (rows: readonly LiveVersion[]) =>
    rows
      .map((r) => `${r.version}\n${r.evidencePaths}`)
      .sort()
      .join('\n\n');
  return key(a) === key(b);
}
