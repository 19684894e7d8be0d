import { isTargetRefusal } from '../fetch/guarded-agent';
import { JobHandler, PermanentJobError, RetryJobError } from '../jobs';
import { CallbackService } from '../services/platform/callback.service';
import { callbackSignature, standardWebhookSignature } from '../services/platform/webhook-signatures';
import type { CallbackPost } from './callback-http-client';

export interface CallbackDeliveryPayload {
  deliveryId: string;
}

export interface CallbackDeliveryWorkerOptions {
  /** Prefix of the signature, delivery id and event headers (HEADER_PREFIX). */
  headerPrefix: string;
  post: CallbackPost;
}

/**
 * The `callback.deliver` job: one POST of the stored body per run. 2xx delivers; anything else
 * (another status, no answer, a timeout) is logged on the delivery and retried on the service's
 * schedule until it has covered the retry window, then the delivery is failed. A target the
 * private-address guard refuses fails at once: retrying cannot make it allowed.
 */
export function createCallbackDeliveryHandler(
  callbacks: CallbackService,
  options: CallbackDeliveryWorkerOptions,
): JobHandler<CallbackDeliveryPayload> {
  return async ({ deliveryId }, context) => {
    const attempt = await callbacks.startAttempt(deliveryId);
    if (!attempt) return;
    const { delivery, secret, previousSecret, attemptedAt } = attempt;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      [`${options.headerPrefix}-delivery-id`]: delivery.id,
      [`${options.headerPrefix}-event`]: delivery.event,
    };
    if (secret) {
      headers[`${options.headerPrefix}-signature`] = callbackSignature(secret, delivery.body);
      // Standard Webhooks: the id stays the same on every attempt (receivers deduplicate on it); the
      // timestamp is this attempt's, so a delivery captured and sent again later is refused as stale.
      const timestamp = Math.floor(attemptedAt.getTime() / 1000);
      const keys = previousSecret ? [secret, previousSecret] : [secret];
      headers['webhook-id'] = delivery.id;
      headers['webhook-timestamp'] = String(timestamp);
      headers['webhook-signature'] = standardWebhookSignature(keys, delivery.id, timestamp, delivery.body);
    }

    let statusCode: number | null = null;
    let problem: string;
    try {
      ({ statusCode } = await options.post({
        url: delivery.url,
        body: delivery.body,
        headers,
        signal: context.signal,
      }));
      if (statusCode >= 200 && statusCode < 300) {
        await callbacks.recordDelivered(delivery.id, statusCode);
        return;
      }
      problem = `The receiver answered HTTP ${statusCode}`;
    } catch (error) {
      if (context.signal.aborted) throw error; // shutting down: the job is handed back, not failed
      if (isTargetRefusal(error)) {
        const message = refusalMessage(error);
        await callbacks.recordFailed(delivery.id, { statusCode: null, error: message, retryDelayMs: null });
        throw new PermanentJobError(message);
      }
      problem = `No response: ${describe(error)}`;
    }
    const last = context.attempt >= context.maxAttempts;
    const retryDelayMs = last ? null : callbacks.retryDelayMs(context.attempt);
    await callbacks.recordFailed(delivery.id, { statusCode, error: problem, retryDelayMs });
    if (retryDelayMs === null) throw new PermanentJobError(`${problem}; retries exhausted`);
    throw new RetryJobError(problem, retryDelayMs);
  };
}

/** The guard's own words (which address, why), from wherever undici wrapped them. */
function refusalMessage(error: unknown): string {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if ((current as NodeJS.ErrnoException).code === 'ERR_TARGET_FORBIDDEN') return current.message;
  }
  return 'Refused target: a private, loopback, link-local or reserved address';
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}
