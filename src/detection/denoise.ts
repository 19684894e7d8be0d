import type { DetectedTechnology } from './detection-result';

/**
 * Results below this confidence are dropped by `denoise`. 50 keeps every technology that one full
 * pattern or two half-confidence patterns found, and every technology implied by such a one (implied
 * technologies inherit the lower of their implier's confidence and the implication's tag), while it
 * drops lone weak hints (`\;confidence:25` or less, or two of them).
 */
export const DENOISE_THRESHOLD = 50;

export function denoise<T extends Pick<DetectedTechnology, 'confidence'>>(
  technologies: readonly T[],
  threshold: number = DENOISE_THRESHOLD,
): T[] {
  return technologies.filter((technology) => technology.confidence >= threshold);
}
