import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import type { TextLanguageDetector } from '../../enrichment';
import { parseNgramLanguageModel } from './ngram-language-model';

let loading: Promise<TextLanguageDetector> | null = null;

/** data/language/eld-small.bin.gz, from the nearest folder above this file with a package.json. */
export function languageModelPath(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'data', 'language', 'eld-small.bin.gz');
}

/**
 * The text-language detector of the enrichment: eld (Efficient Language Detector, n-gram based,
 * 60 languages), its "small" database in the compact form of ngram-language-model.ts (typed arrays
 * instead of eld's object per n-gram; docs/performance.md). Read once, on first use.
 * Returns an ISO 639-1 code when eld calls its answer reliable, undefined otherwise.
 */
export function loadLanguageDetector(): Promise<TextLanguageDetector> {
  loading ??= readFile(languageModelPath()).then((file) => {
    const model = parseNgramLanguageModel(file);
    const detector: TextLanguageDetector = (text) => model.detect(text);
    return detector;
  });
  return loading;
}
