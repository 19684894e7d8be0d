/** CVSS v3.x base score from a vector (the specification's formula); null for a malformed vector. */
export function cvss3BaseScore(vector: string): number | null {
  const m = /^CVSS:3\.[01]\/(.*)$/.exec(vector.trim());
  if (!m) return null;
  const metrics = new Map(m[1].split('/').map((part) => part.split(':') as [string, string]));
  const pick = (key: string, table: Record<string, number>) => table[metrics.get(key) ?? ''];
  const scopeChanged = metrics.get('S') === 'C';
  const av = pick('AV', { N: 0.85, A: 0.62, L: 0.55, P: 0.2 });
  const ac = pick('AC', { L: 0.77, H: 0.44 });
  const pr = pick('PR', scopeChanged ? { N: 0.85, L: 0.68, H: 0.5 } : { N: 0.85, L: 0.62, H: 0.27 });
  const ui = pick('UI', { N: 0.85, R: 0.62 });
  const cia = { H: 0.56, L: 0.22, N: 0 };
  const [c, i, a] = ['C', 'I', 'A'].map((k) => pick(k, cia));
  if ([av, ac, pr, ui, c, i, a].some((v) => v === undefined) || !['U', 'C'].includes(metrics.get('S') ?? ''))
    return null;
  const iss = 1 - (1 - c) * (1 - i) * (1 - a);
  const impact = scopeChanged ? 7.52 * (iss - 0.029) - 3.25 * Math.pow(iss - 0.02, 15) : 6.42 * iss;
  const exploitability = 8.22 * av * ac * pr * ui;
  if (impact <= 0) return 0;
  const raw = scopeChanged
    ? Math.min(1.08 * (impact + exploitability), 10)
    : Math.min(impact + exploitability, 10);
  return roundUp(raw);
}

/** The specification's Roundup: the smallest one-decimal number at or above the input. */
function roundUp(value: number): number {
  const int = Math.round(value * 100000);
  return int % 10000 === 0 ? int / 100000 : (Math.floor(int / 10000) + 1) / 10;
}

/** The qualitative rating of a base score (CVSS v3 and v4 share it). */
export function severityOfScore(score: number): string {
  if (score === 0) return 'NONE';
  if (score < 4) return 'LOW';
  if (score < 7) return 'MEDIUM';
  if (score < 9) return 'HIGH';
  return 'CRITICAL';
}
