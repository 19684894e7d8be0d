import { randomBytes } from 'node:crypto';

let lastMs = -1;
let sequence = 0;

/**
 * A UUID version 7: the first 48 bits are the creation time in milliseconds, then a 12-bit counter
 * that keeps ids made in the same millisecond in creation order (within this process), then random
 * bits. Ordering rows by (created_at, id) therefore lists them in the order they were made, even
 * when several share a millisecond; a random (v4) id would shuffle those.
 */
export function timeOrderedUuid(now: number = Date.now()): string {
  if (now <= lastMs) {
    sequence++;
    if (sequence > 0xfff) {
      // 4,096 ids in one millisecond: borrow the next millisecond rather than lose the order.
      lastMs++;
      sequence = 0;
    }
  } else {
    lastMs = now;
    sequence = 0;
  }
  const bytes = randomBytes(16);
  let ms = lastMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
