import type { TextLanguageDetector } from '../../enrichment';

let loading: Promise<TextLanguageDetector> | null = null;

/**
 * The text-language detector of the enrichment: eld (Efficient Language Detector, n-gram based,
 * 60 languages, maintained), its "small" database (1.6 MB). eld ships as an ES module only, so it
 * is loaded once with import() on first use (the CommonJS build cannot require it), not at start-up.
 * Returns an ISO 639-1 code when eld calls its answer reliable, undefined otherwise.
 */
export function loadLanguageDetector(): Promise<TextLanguageDetector> {
  loading ??= import('eld/small').then(({ eld }) => {
    const detector: TextLanguageDetector = (text) => {
      const result = eld.detect(text);
      return result.language && result.isReliable() ? result.language : undefined;
    };
    return detector;
  });
  return loading;
}
