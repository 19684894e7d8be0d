/**
 * Writes src/detection/markup-window-prior.ts: the 4-character windows page markup repeats most,
 * counted over the pages of test/corpus/sites and test/fixtures/pages, each with its grade (see that
 * file). Run from the repository root after a build, when the corpus has changed much:
 * node dist/bench/parse/write-markup-window-prior.js
 * (Those pages are also what bench:parse measures: docs/performance.md gives the scan's gain on
 * sites the prior was not counted from.)
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How many windows the prior keeps: fewer leave most of the markup's repeated word parts out. */
const KEPT = 10000;

function pageFiles(root: string): string[] {
  const sites = join(root, 'test/corpus/sites');
  const fixtures = join(root, 'test/fixtures/pages');
  return [
    ...readdirSync(sites).flatMap((site) =>
      readdirSync(join(sites, site))
        .filter((file) => /^page-\d+\.html$/.test(file))
        .map((file) => join(sites, site, file)),
    ),
    ...readdirSync(fixtures)
      .filter((file) => file.endsWith('.html'))
      .map((file) => join(fixtures, file)),
  ];
}

/** Every window of the text, lowercase, packed as the scan packs a window (8 bits per character). */
function countWindows(text: string, counts: Map<number, number>): void {
  let window = 0;
  for (let i = 0; i < text.length; i++) {
    const lower = String.fromCharCode(text.charCodeAt(i)).toLowerCase();
    const code = lower.length === 1 ? lower.charCodeAt(0) : text.charCodeAt(i);
    window = (window << 8) | (code & 0xff);
    if (i >= 3 && window !== 0) counts.set(window, (counts.get(window) ?? 0) + 1);
  }
}

function main(): void {
  const root = process.cwd();
  const counts = new Map<number, number>();
  const files = pageFiles(root);
  for (const file of files) countWindows(readFileSync(file, 'utf8'), counts);
  const kept = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, KEPT);
  const bytes = Buffer.alloc(kept.length * 4);
  const gradeCounts = new Map<number, number>();
  kept.forEach(([window, count], k) => {
    bytes.writeInt32BE(window, k * 4);
    const grade = Math.round(Math.log2(1 + count));
    gradeCounts.set(grade, (gradeCounts.get(grade) ?? 0) + 1);
  });
  const grades = [...gradeCounts].sort((a, b) => b[0] - a[0]);
  const out = `/**
 * The ${kept.length} 4-character windows page markup repeats most, written by
 * bench/parse/write-markup-window-prior.ts from the ${files.length} pages of test/corpus/sites and test/fixtures/pages.
 * Each window is 4 bytes (the low 8 bits of each lowercase character, as the scan packs a window),
 * most repeated first, in base64.
 */
export const MARKUP_WINDOWS =
  '${bytes.toString('base64')}';

/**
 * [grade, how many windows have it], in the order of MARKUP_WINDOWS: a window's grade is about the
 * base-2 logarithm of how often it occurs in those pages.
 */
export const MARKUP_WINDOW_GRADES: readonly (readonly [number, number])[] = [
${grades.map(([grade, n]) => `  [${grade}, ${n}],\n`).join('')}];
`;
  writeFileSync(join(root, 'src/detection/markup-window-prior.ts'), out);
}

if (require.main === module) main();
