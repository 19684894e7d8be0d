import type { Services } from '../services/services';
import { cliOperator } from './fingerprints-load.command';

/** `npm run admin -- fingerprints:activate --version ID [--json]`: an earlier set becomes active again. */
export async function fingerprintsActivate(
  s: Services,
  options: { version: string; json: boolean },
): Promise<{ output: string; code: number }> {
  const result = await s.fingerprintPacks.activate(options.version, cliOperator());
  return {
    output: options.json
      ? JSON.stringify({ ok: true, ...result })
      : `active version ${result.version} (was ${result.previousVersion})`,
    code: 0,
  };
}
