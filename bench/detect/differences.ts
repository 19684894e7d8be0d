import type { DetectedTechnology } from '../../src/detection';

/**
 * Why our engine found a technology the reference core did not, from the evidence it carries. The
 * reasons are the measured defects of the core (and of how it can be fed) that this engine fixes.
 */
export function explainOursOnly(t: DetectedTechnology, oursOnly: Set<string>): string {
  const kinds = new Set(t.evidence.map((e) => e.kind));
  if (t.implied) {
    const by = t.evidence.find((e) => e.kind === 'implies')?.pattern ?? '?';
    return oursOnly.has(by) ? `implied by ${by}, itself found only by us` : `implied by ${by}`;
  }
  if (t.evidence.some((e) => e.pattern.includes('\\/')))
    return 'pattern with an escaped "\\/": unmatchable in the core';
  if (t.evidence.some((e) => e.kind === 'cookies' && /[\\[\]()*+?{}^$|]/.test(e.key ?? ''))) {
    return 'cookie name given as a regex (core looks it up literally)';
  }
  if (kinds.size === 1 && kinds.has('dom')) return 'DOM selector (the core runs no DOM patterns)';
  if (t.evidence.some((e) => e.kind === 'url' && /^\^?https\??\/\//.test(e.pattern)))
    return 'url pattern missing ":" (repaired)';
  if (kinds.has('dom')) return 'DOM selector among other evidence (the core runs no DOM patterns)';
  if (kinds.has('scriptSrc'))
    return 'scriptSrc matched on the URL as written (the core sees only resolved URLs)';
  return `UNEXPLAINED (evidence: ${[...kinds].join(', ')})`;
}
