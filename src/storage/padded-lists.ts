/**
 * A list grown to the next power of two by repeating its last element, so that IN lists and CASE
 * branches come in a handful of sizes: each size is one prepared statement, cached per connection
 * (at most seven forms up to 64 elements, rather than one per length).
 */
export function paddedToPowerOfTwo<T>(list: T[]): T[] {
  let size = 1;
  while (size < list.length) size *= 2;
  return [...list, ...Array.from({ length: size - list.length }, () => list[list.length - 1])];
}

/** `n` placeholders for an IN list: "?, ?, ?". */
export const marks = (n: number): string => Array.from({ length: n }, () => '?').join(', ');
