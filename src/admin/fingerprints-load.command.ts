import { hostname, userInfo } from 'node:os';
import { formatProblem } from '../detection/pack-validator';
import { InvalidPackError } from '../services/fingerprints/fingerprint-pack.service';
import type { Services } from '../services/services';

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
 * is stored, the new set activated and announced, and its version printed.
 */
export async function fingerprintsLoad(
  s: Services,
  options: { from: string; replace: boolean; name?: string; json: boolean },
): Promise<{ output: string; code: number }> {
  try {
    const loaded = await s.fingerprintPacks.load({
      path: options.from,
      replace: options.replace,
      ...(options.name ? { name: options.name } : {}),
      by: cliOperator(),
    });
    if (options.json) return { output: JSON.stringify({ ok: true, ...loaded }), code: 0 };
    return {
      output: [
        `loaded ${loaded.pack.name} (${loaded.pack.role}, ${loaded.pack.technologies} technologies, version ${loaded.pack.version})`,
        ...loaded.warnings.map(formatProblem),
        `active version ${loaded.version} (was ${loaded.previousVersion})`,
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
