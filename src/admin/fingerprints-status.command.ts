import type { FingerprintStatus } from '../services/fingerprints/fingerprint-pack.service';
import type { Services } from '../services/services';

const when = (date: Date | null) => (date ? date.toISOString() : '-');

/** `npm run admin -- fingerprints:status [--json]`: the active set, its packs, earlier sets. */
export async function fingerprintsStatus(
  s: Services,
  json: boolean,
): Promise<{ output: string; code: number }> {
  const status: FingerprintStatus = await s.fingerprintPacks.status();
  if (json) return { output: JSON.stringify(status), code: 0 };
  const lines = [
    `active version ${status.version}${status.stored ? ` (activated ${when(status.activatedAt)} by ${status.activatedBy})` : ' (the default set: no pack was ever loaded)'}`,
    ...status.packs.map(
      (p) =>
        `  ${p.position}. ${p.name} ${p.role} ${p.version}, ${p.technologies} technologies, loaded ${when(p.loadedAt)}${p.loadedBy ? ` by ${p.loadedBy}` : ''}`,
    ),
  ];
  if (status.corrections && !status.corrections.active)
    lines.push(
      `the corrections pack of this deployment (${status.corrections.version}) differs from the active set's: any load or unload takes it`,
    );
  if (status.history.length > 1)
    lines.push(
      'history (newest first):',
      ...status.history.map((h) => `  ${h.version} ${when(h.activatedAt)} by ${h.activatedBy}`),
    );
  return { output: lines.join('\n'), code: 0 };
}
