// Writes data/language/eld-small.bin.gz: eld's "small" n-gram database (the text-language detector of
// the enrichment) in a compact form the service reads without loading eld's module, whose object
// literal of n-grams becomes an object per n-gram (docs/performance.md, "The workers", has the cost).
// Run after upgrading eld: `node scripts/compact-language-data.mjs` (or give another target file); a unit test
// (test/unit/services/language-detector.test.ts) fails while the file and the installed eld differ.
//
// Layout (little-endian), gzip-compressed:
//   "ELDC1\n", uint32 header length, header JSON (eld version, data type, language codes by number,
//   each language's average score, the separators regex's source and flags, the 256 characters that
//   stand for UTF-8 bytes, counts), zero padding to
//   a multiple of 8, then
//   Float64 keys[count]      each n-gram as a number (length, then its characters in base 256), sorted
//   Uint32  starts[count+1]  where each n-gram's entries begin in the two arrays below
//   Uint8   languages[entries], Uint8 scores[entries]   (language number, score above eld's base)
import { Buffer } from 'node:buffer';
import console from 'node:console';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const eld = join(root, 'node_modules', 'eld');
const { version } = JSON.parse(readFileSync(join(eld, 'package.json'), 'utf8'));
const { ngramsData } = await import(join(eld, 'src', 'ngrams', 'small.js'));
const { avgScore } = await import(join(eld, 'src', 'avgScore.js'));
const { separators } = await import(join(eld, 'src', 'regexPatterns.js'));
const { dictionary } = await import(join(eld, 'src', 'dictionary.js'));

/** Must match ngramKey() in src/services/analysis/ngram-language-model.ts. */
function ngramKey(ngram) {
  let key = ngram.length;
  for (let i = 0; i < ngram.length; i++) key = key * 256 + ngram.charCodeAt(i);
  return key;
}

const languages = Object.keys(ngramsData.languages)
  .map(Number)
  .sort((a, b) => a - b)
  .map((id, index) => {
    if (id !== index) throw new Error(`language numbers are not 0..n-1 (${id} at ${index})`);
    return ngramsData.languages[id];
  });
const rows = Object.entries(ngramsData.ngrams).map(([ngram, scores]) => {
  if (ngram.length > 6 || [...ngram].some((c) => c.charCodeAt(0) > 255))
    throw new Error(`n-gram ${ngram} does not fit`);
  const entries = Object.entries(scores).map(([language, score]) => {
    if (!(score >= 0 && score <= 255)) throw new Error(`score ${score} of ${ngram} does not fit a byte`);
    return [Number(language), score];
  });
  return { key: ngramKey(ngram), entries };
});
rows.sort((a, b) => a.key - b.key);
for (let i = 1; i < rows.length; i++)
  if (rows[i].key === rows[i - 1].key) throw new Error('two n-grams share a key');

const count = rows.length;
const entryCount = rows.reduce((sum, row) => sum + row.entries.length, 0);
const keys = new Float64Array(count);
const starts = new Uint32Array(count + 1);
const languageOf = new Uint8Array(entryCount);
const scoreOf = new Uint8Array(entryCount);
let at = 0;
rows.forEach((row, i) => {
  keys[i] = row.key;
  starts[i] = at;
  for (const [language, score] of row.entries) {
    languageOf[at] = language;
    scoreOf[at] = score;
    at++;
  }
});
starts[count] = at;

const header = Buffer.from(
  JSON.stringify({
    eld: version,
    type: ngramsData.type,
    languages,
    averageScores: languages.map((code) => avgScore[code]),
    separators: { source: separators.source, flags: separators.flags },
    dictionary: dictionary.join(''),
    count,
    entries: entryCount,
  }),
);
const magic = Buffer.from('ELDC1\n');
const prefix = magic.length + 4 + header.length;
const padding = Buffer.alloc((8 - (prefix % 8)) % 8);
const length = Buffer.alloc(4);
length.writeUInt32LE(header.length);
const file = Buffer.concat([
  magic,
  length,
  header,
  padding,
  Buffer.from(keys.buffer),
  Buffer.from(starts.buffer),
  Buffer.from(languageOf.buffer),
  Buffer.from(scoreOf.buffer),
]);
const target = process.argv[2] ?? join(root, 'data', 'language', 'eld-small.bin.gz');
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, gzipSync(file, { level: 9 }));
console.log(
  `${target}: ${count} n-grams, ${entryCount} scores, ${file.length} bytes (${languages.length} languages)`,
);
