/**
 * The memory a cached value of small objects and short strings holds, per byte of its JSON text:
 * V8's object headers, property tables and 16-byte-aligned strings, plus the JSON text the answer
 * renders once and keeps. Read off a heap snapshot of the API under the memory bench (stored
 * Lookup v1 histories: retained size over JSON length); an estimate for a cache's byte bound, not
 * an accounting.
 */
export const HELD_BYTES_PER_JSON_BYTE = 4;
