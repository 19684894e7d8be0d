import { createHash, createHmac } from 'node:crypto';

/**
 * The two ways a callback is signed. `service-signature` (the commercial API's scheme, kept for its
 * clients): hex sha256 over the secret followed by the body; nothing in it ties the signature to a
 * moment, so a captured delivery can be replayed. Standard Webhooks (standardwebhooks.com): an
 * HMAC-SHA256 over `id.timestamp.body`, so a receiver rejects a stale timestamp or an id it has
 * already seen, with any library of that standard.
 */

/** The `service-signature` header value: lowercase hex sha256 over the secret followed by the raw body. */
export function callbackSignature(secret: string, body: string): string {
  return createHash('sha256')
    .update(secret + body, 'utf8')
    .digest('hex');
}

/**
 * The `webhook-signature` header value: `v1,<base64 HMAC>` per secret, space-separated (the new
 * secret first, then the replaced one during its grace period). The HMAC key is the secret's UTF-8
 * bytes, which is what a receiver configures as `whsec_` + base64 of them (see standardWebhooksSecret).
 */
export function standardWebhookSignature(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const signed = `${id}.${timestampSeconds}.${body}`;
  return secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', Buffer.from(secret, 'utf8')).update(signed, 'utf8').digest('base64')}`,
    )
    .join(' ');
}

/** The form a Standard Webhooks verifier takes the account's secret in. */
export function standardWebhooksSecret(secret: string): string {
  return `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;
}
