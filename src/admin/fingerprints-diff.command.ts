import { DetectionEngine } from '../detection';
import { readPack } from '../detection/pack-files';
import { formatProblem, validatePack } from '../detection/pack-validator';
import { compilePack, overlayPacks, parsePack, type RawPack } from '../detection/raw-pack';
import type { Config } from '../platform/config';
import {
  FingerprintsDiffService,
  type FingerprintsDiffReport,
} from '../services/fingerprints/fingerprints-diff.service';
import type { TrendBreakOptions, TrendFlag } from '../services/fingerprints/trend-breaks';
import { currentRawPack, type Services } from '../services/services';

export interface DiffOptions {
  from: string;
  replace: boolean;
  json: boolean;
  trend: TrendBreakOptions;
}

type Output = { output: string; code: number };

/**
 * `npm run admin -- fingerprints:diff --from PATH [--replace] [--share 0.2] [--min-sites 3] [--json]`,
 * in two steps: the pack is validated before anything else is opened (a bad pack is refused with its
 * problems, exit code 1, as fingerprints:check refuses it), then compared with the fingerprints the
 * service runs, over the database: technologies added, removed and changed (which fields), the
 * stored sites each touches, and the trend breaks the stored page samples show.
 */
export function fingerprintsDiff(
  options: DiffOptions,
): { refused: Output } | { run(s: Services, config: Config): Promise<Output> } {
  let pack: RawPack;
  let version: string;
  try {
    const source = readPack(options.from);
    const report = validatePack(source);
    if (!report.ok) {
      const output = options.json
        ? JSON.stringify(report)
        : [`pack ${options.from}`, ...report.problems.map(formatProblem), 'invalid'].join('\n');
      return { refused: { output, code: 1 } };
    }
    pack = parsePack(source);
    version = report.summary.version;
  } catch (error) {
    const problem = { severity: 'error' as const, file: options.from, message: (error as Error).message };
    const output = options.json
      ? JSON.stringify({ ok: false, summary: null, problems: [problem] })
      : [formatProblem(problem), 'invalid'].join('\n');
    return { refused: { output, code: 1 } };
  }
  return {
    run: async (s, config) => {
      const current = { raw: currentRawPack(config), engine: s.engine };
      const raw = options.replace ? pack : overlayPacks(current.raw, pack);
      const candidate = { raw, engine: new DetectionEngine(compilePack(raw), version) };
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
