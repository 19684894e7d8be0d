import { formatProblem } from '../detection/pack-validator';
import { InvalidPackError } from '../services/fingerprints/fingerprint-pack.service';
import type { Services } from '../services/services';
import { cliOperator } from './fingerprints-load.command';

/**
 * `npm run admin -- fingerprints:unload --name NAME [--json]`: the set without that overlay (or, for
 * a base an operator loaded, with the default base again) becomes active, once what stays still
 * validates.
 */
export async function fingerprintsUnload(
  s: Services,
  options: { name: string; json: boolean },
): Promise<{ output: string; code: number }> {
  try {
    const result = await s.fingerprintPacks.unload(options.name, cliOperator());
    return {
      output: options.json
        ? JSON.stringify({ ok: true, ...result })
        : `unloaded ${options.name}: active version ${result.version} (was ${result.previousVersion})`,
      code: 0,
    };
  } catch (error) {
    if (!(error instanceof InvalidPackError)) throw error;
    return {
      output: options.json
        ? JSON.stringify({ ok: false, problems: error.problems })
        : [...error.problems.map(formatProblem), `refused: ${options.name} stays loaded`].join('\n'),
      code: 1,
    };
  }
}
