import { DetectionEngine } from '../detection';
import { readPack } from '../detection/pack-files';
import { formatProblem, validatePack, type PackReport } from '../detection/pack-validator';
import { compilePack, overlayPacks, parsePack } from '../detection/raw-pack';
import type { PackSource } from '../detection/pack-files';
import {
  FingerprintsDiffService,
  type FingerprintsDiffReport,
} from '../services/fingerprints/fingerprints-diff.service';
import type { TrendBreakOptions, TrendFlag } from '../services/fingerprints/trend-breaks';
import { contextOf } from '../services/fingerprints/pack-validation';
import { rawSetOf } from '../services/fingerprints/pack-set';
import type { Services } from '../services/services';
import { unreadablePack } from './fingerprints-check.command';

export interface DiffOptions {
  from: string;
  replace: boolean;
  json: boolean;
  trend: TrendBreakOptions;
}

type Output = { output: string; code: number };

/**
 * `npm run admin -- fingerprints:diff --from PATH [--replace] [--share 0.2] [--min-sites 3] [--json]`,
 * in two steps: the pack's files are read before anything else is opened (a missing pack is refused,
 * exit code 1); then, over the database, the pack is validated completely as fingerprints:load would
 * (an overlay over the active set, so it may name the set's technologies; with --replace alone), a
 * bad pack refused with its problems (exit code 1), and the pack compared with the fingerprints the
 * process runs: technologies added, removed and changed (which fields), the stored sites each
 * touches, and the trend breaks the stored page samples show.
 */
export function fingerprintsDiff(
  options: DiffOptions,
): { refused: Output } | { run(s: Services): Promise<Output> } {
  let source: PackSource;
  try {
    source = readPack(options.from);
  } catch (error) {
    const report = unreadablePack(options.from, error);
    const output = options.json
      ? JSON.stringify(report)
      : [...report.problems.map(formatProblem), 'invalid'].join('\n');
    return { refused: { output, code: 1 } };
  }
  return {
    run: async (s) => {
      const engine = s.engine;
      const current = { raw: await rawSetOf(await s.fingerprints.currentLayers()), engine };
      const checked = validatePack(source, options.replace ? undefined : contextOf(current.raw));
      if (!checked.ok) return { output: refusal(options, checked), code: 1 };
      const pack = parsePack(source);
      const raw = options.replace ? pack : overlayPacks(current.raw, pack);
      const candidate = { raw, engine: new DetectionEngine(compilePack(raw), checked.summary.version) };
      const report = await new FingerprintsDiffService(s.db, s.pageSamples.read).diff(
        current,
        candidate,
        options.trend,
      );
      const mode = options.replace ? 'replace' : 'overlay';
      return {
        output: options.json
          ? JSON.stringify({ ok: true, from: options.from, mode, ...report })
          : formatReport(options.from, mode, report),
        code: 0,
      };
    },
  };
}

function refusal(options: DiffOptions, report: PackReport): string {
  return options.json
    ? JSON.stringify(report)
    : [`pack ${options.from}`, ...report.problems.map(formatProblem), 'invalid'].join('\n');
}

function formatReport(from: string, mode: 'replace' | 'overlay', r: FingerprintsDiffReport): string {
  const sites = (n: number) => `${n} stored site${n === 1 ? '' : 's'}`;
  const lines = [
    `current    ${r.current.version} (${r.current.technologies} technologies)`,
    `candidate  ${r.candidate.version} (${r.candidate.technologies} technologies): ${from} ${
      mode === 'replace' ? 'replacing the current fingerprints' : 'laid over the current fingerprints'
    }`,
    `added ${r.added.length}`,
    ...r.added.map((t) => `  + ${t.name} (${t.slug}): ${sites(t.storedSites)}`),
    `removed ${r.removed.length}`,
    ...r.removed.map((t) => `  - ${t.name} (${t.slug}): ${sites(t.storedSites)}`),
    `changed ${r.changed.length}`,
    ...r.changed.map((t) => `  ~ ${t.name} (${t.slug}): ${t.fields.join(', ')}; ${sites(t.storedSites)}`),
  ];
  const c = r.categories;
  if (c.added.length + c.removed.length + c.changed.length > 0)
    lines.push(`categories: added ${ids(c.added)}, removed ${ids(c.removed)}, changed ${ids(c.changed)}`);
  const { read, failed, options, flags } = r.samples;
  lines.push(
    `samples ${read} re-run${failed ? ` (${failed} failed)` : ''}: ${flags.length} trend break${
      flags.length === 1 ? '' : 's'
    } (change over ${Math.round(options.share * 100)}%, at least ${options.minSites} sites before or after)`,
    ...flags.map(formatFlag),
  );
  return lines.join('\n');
}

function ids(list: readonly string[]): string {
  return list.length ? list.join(' ') : 'none';
}

/** `  ! wordpress (WordPress) falls 10 -> 2 (-80%)`. */
export function formatFlag(flag: TrendFlag): string {
  const change =
    flag.change === null ? 'from none' : `${flag.change > 0 ? '+' : ''}${Math.round(flag.change * 100)}%`;
  return `  ! ${flag.slug} (${flag.name}) ${flag.direction} ${flag.before} -> ${flag.after} (${change})`;
}
