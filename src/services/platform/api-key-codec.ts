import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_PREFIX = 'tis_';

/** A new API key: 256 random bits, URL-safe, with a recognisable prefix (secret scanners can spot it). */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** A new callback signing secret (hex, 256 bits). */
export function generateSigningSecret(): string {
  return randomBytes(32).toString('hex');
}

/** SHA-256 of the key, hex (one-shot: a quarter of a Hash object's cost, on every request). */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** The part of a key shown in listings: enough to tell keys apart, useless to an attacker. */
export function displayPrefix(key: string): string {
  return key.slice(0, 12);
}

/** Constant-time equality of two strings, by comparing their SHA-256 digests (equal length). */
export function constantTimeEquals(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}
