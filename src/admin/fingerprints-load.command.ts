import { hostname, userInfo } from 'node:os';
import { formatProblem } from '../detection/pack-validator';
import { InvalidPackError } from '../services/fingerprints/fingerprint-pack.service';
import {
  countOnSamples,
  flagTrendBreaks,
  TREND_BREAK_DEFAULTS,
  type TrendFlag,
} from '../services/fingerprints/trend-breaks';
import type { Services } from '../services/services';
import { formatFlag } from './fingerprints-diff.command';

/** Who loads, as fingerprints:status shows it: the operator's user on this host. */
export function cliOperator(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No user entry (a container's arbitrary uid): the host alone says where it came from.
  }
  return `cli:${user}@${hostname()}`;
}

/**
 * `npm run admin -- fingerprints:load --from PATH [--replace] [--name NAME] [--json]`: the pack is
 * validated completely (as an overlay over the active set, or as the new base with --replace) and
 * refused whole on any error (exit code 1, every problem listed, the active set unchanged); else it
 * is stored, the new set activated and announced, and its version printed. Then the set that ran
 * before and the new one are both run on the stored page samples and every trend break is listed,
 * so an operator who loaded without `fingerprints:diff` first still sees a broken rule at once (and
 * can go back with fingerprints:activate).
 */
export async function fingerprintsLoad(
  s: Services,
  options: { from: string; replace: boolean; name?: string; json: boolean },
): Promise<{ output: string; code: number }> {
  const previous = s.fingerprints.current();
  try {
    const loaded = await s.fingerprintPacks.load({
      path: options.from,
      replace: options.replace,
      ...(options.name ? { name: options.name } : {}),
      by: cliOperator(),
    });
    const trendBreaks = await trendBreaksAfterSwitch(s, previous);
    if (options.json) return { output: JSON.stringify({ ok: true, ...loaded, trendBreaks }), code: 0 };
    return {
      output: [
        `loaded ${loaded.pack.name} (${loaded.pack.role}, ${loaded.pack.technologies} technologies, version ${loaded.pack.version})`,
        ...loaded.warnings.map(formatProblem),
        `active version ${loaded.version} (was ${loaded.previousVersion})`,
        `samples ${trendBreaks.samples} re-run: ${trendBreaks.flags.length} trend break${
          trendBreaks.flags.length === 1 ? '' : 's'
        }${trendBreaks.flags.length ? ' (fingerprints:activate --version ' + loaded.previousVersion + ' goes back)' : ''}`,
        ...trendBreaks.flags.map(formatFlag),
      ].join('\n'),
      code: 0,
    };
  } catch (error) {
    if (!(error instanceof InvalidPackError)) throw error;
    const active = await s.fingerprintPacks.status();
    if (options.json)
      return {
        output: JSON.stringify({ ok: false, activeVersion: active.version, problems: error.problems }),
        code: 1,
      };
    return {
      output: [
        ...error.problems.map(formatProblem),
        `refused: the pack was not loaded; the active version stays ${active.version}`,
      ].join('\n'),
      code: 1,
    };
  }
}

/** The set that ran before and the one now active, both run on the stored page samples. */
async function trendBreaksAfterSwitch(
  s: Services,
  previous: ReturnType<Services['fingerprints']['current']>,
): Promise<{ samples: number; flags: TrendFlag[] }> {
  await s.fingerprints.refresh();
  const next = s.fingerprints.current();
  if (next.version === previous.version) return { samples: 0, flags: [] };
  const counts = await countOnSamples(previous, next, s.pageSamples.read);
  return {
    samples: counts.samples,
    flags: flagTrendBreaks(counts.before, counts.after, TREND_BREAK_DEFAULTS, counts.names),
  };
}
