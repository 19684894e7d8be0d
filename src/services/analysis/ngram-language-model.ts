import { gunzipSync } from 'node:zlib';

/**
 * eld's n-gram language detection (Efficient Language Detector, Apache-2.0, Nito T.M.) over a
 * compact copy of its "small" database (data/language/eld-small.bin.gz, written by
 * scripts/compact-language-data.mjs): sorted keys in a Float64Array, scores in two byte arrays,
 * instead of the object per n-gram eld's module builds. The text processing,
 * scoring and reliability test below are eld 2.1's (src/languageDetector.js, src/LanguageResult.js),
 * kept step for step so the answers are eld's own (a unit test compares them).
 */
export interface NgramLanguageModel {
  /** An ISO 639-1 code when eld would call its answer reliable, undefined otherwise. */
  detect(text: string): string | undefined;
  /** The bytes the model's arrays hold (the figure in docs/performance.md). */
  readonly bytes: number;
}

interface ModelHeader {
  eld: string;
  type: string;
  languages: string[];
  averageScores: number[];
  separators: { source: string; flags: string };
  /** The character eld writes for each byte of UTF-8 (its src/dictionary.js), indexed by byte. */
  dictionary: string;
  count: number;
  entries: number;
}

const MAGIC = 'ELDC1\n';
/** eld subtracts this from every stored score to keep its database small. */
const BASE_NGRAM_SCORE = 53;
/** eld's hand-picked scale of the raw scores. */
const SCORE_SCALE = 25;
const RELIABLE_THRESHOLD = 0.75;

/** An n-gram as a number: its length, then its characters (each below 256) in base 256. */
export function ngramKey(ngram: string): number {
  let key = ngram.length;
  for (let i = 0; i < ngram.length; i++) key = key * 256 + ngram.charCodeAt(i);
  return key;
}

export function parseNgramLanguageModel(compressed: Buffer): NgramLanguageModel {
  const file = gunzipSync(compressed);
  if (file.toString('latin1', 0, MAGIC.length) !== MAGIC)
    throw new Error('not a compact n-gram language model');
  const headerLength = file.readUInt32LE(MAGIC.length);
  const headerStart = MAGIC.length + 4;
  const header = JSON.parse(file.toString('utf8', headerStart, headerStart + headerLength)) as ModelHeader;
  let at = headerStart + headerLength;
  at += (8 - (at % 8)) % 8;
  // Copies, so that the arrays are aligned and the decompressed file can go.
  const keys = new Float64Array(
    file.buffer.slice(file.byteOffset + at, file.byteOffset + at + header.count * 8),
  );
  at += header.count * 8;
  const starts = new Uint32Array(
    file.buffer.slice(file.byteOffset + at, file.byteOffset + at + (header.count + 1) * 4),
  );
  at += (header.count + 1) * 4;
  const languageOf = Uint8Array.from(file.subarray(at, at + header.entries));
  at += header.entries;
  const scoreOf = Uint8Array.from(file.subarray(at, at + header.entries));
  const separators = new RegExp(header.separators.source, header.separators.flags);
  const languageCount = header.languages.length;

  function find(key: number): number {
    let low = 0;
    let high = keys.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const value = keys[middle];
      if (value === key) return middle;
      if (value < key) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  function detect(input: string): string | undefined {
    const text = input.substring(0, 1000).replace(separators, ' ').trim().toLowerCase();
    const ngrams = byteNgrams(utf8Words(text, header.dictionary));
    const scores = new Array<number>(languageCount).fill(0);
    for (const ngram of ngrams) {
      const index = ngram.length <= 6 ? find(ngramKey(ngram)) : -1;
      if (index < 0) continue;
      for (let entry = starts[index]; entry < starts[index + 1]; entry++) {
        scores[languageOf[entry]] += scoreOf[entry] + BASE_NGRAM_SCORE;
      }
    }
    // eld's getMaxLang: the first language with the highest positive score.
    let best = -1;
    let bestScore = 0;
    for (let language = 0; language < languageCount; language++) {
      if (scores[language] > 0 && scores[language] > bestScore) {
        bestScore = scores[language];
        best = language;
      }
    }
    if (best < 0) return undefined;
    return reliable(scores, best, ngrams.size) ? header.languages[best] : undefined;
  }

  /** eld's LanguageResult.isReliable(0.75), including its comparison with the runner-up's number. */
  function reliable(scores: number[], best: number, ngramCount: number): boolean {
    if (ngramCount < 3) return false;
    const ordered: Array<[number, number]> = [];
    for (let language = 0; language < languageCount; language++) {
      if (scores[language] > 0) {
        const perNgram = scores[language] / ngramCount;
        ordered.push([language, perNgram / (perNgram + SCORE_SCALE)]);
      }
    }
    ordered.sort((a, b) => b[1] - a[1]);
    // eld compares the best score with results[1][0], the runner-up's language number, not its score.
    const next = ordered.length > 1 ? ordered[1][0] : 0;
    return !(
      header.averageScores[best] * RELIABLE_THRESHOLD > ordered[0][1] || 0.01 > Math.abs(ordered[0][1] - next)
    );
  }

  return {
    detect,
    bytes: keys.byteLength + starts.byteLength + languageOf.byteLength + scoreOf.byteLength,
  };
}

/** eld's strToUtf8Bytes: the words of the text as its UTF-8 bytes (dictionary stand-ins), cut near 380 bytes. */
function utf8Words(text: string, dictionary: string): string[] {
  const words: string[] = [];
  let encoded = '';
  let countBytes = 0;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code < 0x80) {
      if (code === 32) {
        if (encoded !== '') {
          words.push(encoded);
          encoded = '';
        }
        if (countBytes > 350) break;
      } else {
        encoded += text[i];
      }
      countBytes++;
    } else if (code < 0x800) {
      encoded += dictionary[0xc0 | (code >> 6)] + dictionary[0x80 | (code & 0x3f)];
      countBytes += 2;
    } else if (code < 0xd800 || code >= 0xe000) {
      encoded +=
        dictionary[0xe0 | (code >> 12)] +
        dictionary[0x80 | ((code >> 6) & 0x3f)] +
        dictionary[0x80 | (code & 0x3f)];
      countBytes += 3;
    } else {
      i++;
      code = 0x10000 + (((code & 0x3ff) << 10) | (text.charCodeAt(i) & 0x3ff));
      encoded +=
        dictionary[0xf0 | (code >> 18)] +
        dictionary[0x80 | ((code >> 12) & 0x3f)] +
        dictionary[0x80 | ((code >> 6) & 0x3f)] +
        dictionary[0x80 | (code & 0x3f)];
      countBytes += 4;
    }
    if (countBytes > 380) break;
  }
  if (encoded !== '') words.push(encoded);
  return words;
}

/** eld's getByteNgrams: 4-byte n-grams at a stride of 3, word starts and ends marked by a space. */
function byteNgrams(words: string[]): Set<string> {
  const ngrams = new Set<string>();
  for (const word of words) {
    const length = Math.min(word.length, 70);
    let j = 0;
    for (; j + 4 < length; j += 3) ngrams.add((j === 0 ? ' ' : '') + word.substring(j, j + 4));
    ngrams.add((j === 0 ? ' ' : '') + word.substring(length !== 3 ? length - 4 : 0) + ' ');
  }
  return ngrams;
}
