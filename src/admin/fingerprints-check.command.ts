import { readPack } from '../detection/pack-files';
import { formatProblem, validatePack, type PackReport } from '../detection/pack-validator';

/**
 * `npm run admin -- fingerprints:check --from PATH [--json]`: the summary, then every problem (or
 * `ok`). Exit code 0 when the pack is valid (warnings allowed), 1 when not. A pack whose files cannot
 * be found is invalid too: the report names what is missing.
 */
export function fingerprintsCheck(path: string, json: boolean): { output: string; code: number } {
  const started = performance.now();
  // A pack whose files cannot be found has no summary, only the problem saying so.
  let report: Omit<PackReport, 'summary'> & { summary: PackReport['summary'] | null };
  try {
    report = validatePack(readPack(path));
  } catch (error) {
    report = unreadablePack(path, error);
  }
  const ms = Math.round(performance.now() - started);
  const code = report.ok ? 0 : 1;
  if (json) return { output: JSON.stringify({ ...report, ms }), code };
  const lines: string[] = [];
  const { summary } = report;
  if (summary) {
    lines.push(
      `pack ${path}`,
      `  technologies ${summary.technologies}, categories ${summary.categories}, groups ${summary.groups}`,
      `  version ${summary.version}${summary.versionDeclared ? ' (declared in pack.json)' : ' (content hash)'}`,
      `  ${summary.errors} errors, ${summary.warnings} warnings (checked in ${ms} ms)`,
    );
  }
  lines.push(...report.problems.map(formatProblem));
  lines.push(report.ok ? 'ok' : 'invalid');
  return { output: lines.join('\n'), code };
}

/** The report of a pack whose files cannot be read: no summary, the one problem saying why. */
export function unreadablePack(path: string, error: unknown) {
  const problem = { severity: 'error' as const, file: path, message: (error as Error).message };
  return { ok: false, summary: null, problems: [problem] };
}
