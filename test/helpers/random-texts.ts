/**
 * `count` texts of 1 to `most` pieces each, drawn by a fixed-seed generator (Lehmer's): the same
 * texts on every run, for property tests that compare a search with a plain regex.
 */
export function randomTexts(pieces: readonly string[], count: number, most: number, seed: number): string[] {
  let state = seed;
  const next = (n: number): number => (state = (state * 48271) % 2147483647) % n;
  const texts: string[] = [];
  for (let k = 0; k < count; k++) {
    let text = '';
    for (let n = 1 + next(most); n > 0; n--) text += pieces[next(pieces.length)];
    texts.push(text);
  }
  return texts;
}
