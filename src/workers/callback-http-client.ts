import { request } from 'undici';
import { createGuardedAgent } from '../fetch/guarded-agent';
import type { HostLookup } from '../fetch/private-address-guard';
import { SERVICE_USER_AGENT } from '../platform/service-version';

export interface CallbackRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  signal: AbortSignal;
}

/** POSTs one callback and reports the status code; throws when no response came back. */
export type CallbackPost = (request: CallbackRequest) => Promise<{ statusCode: number }>;

export interface CallbackHttpClientOptions {
  /** Time for the whole exchange: connect, headers and body (CALLBACK_TIMEOUT_MS). */
  timeoutMs: number;
  /** ALLOW_PRIVATE_TARGETS: tests and local development only. */
  allowPrivateTargets: boolean;
  /** ALLOWED_PRIVATE_RANGES: private ranges a callback may reach while the others stay refused. */
  allowedPrivateRanges?: readonly string[];
  lookup?: HostLookup;
}

export interface CallbackHttpClient {
  post: CallbackPost;
  close(): Promise<void>;
}

/** Receivers answer with a status; a large body is theirs to keep, we read only this much. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Callback POSTs through the same guarded dispatcher as crawling: the address actually connected
 * is checked against private, loopback, link-local and metadata ranges. Redirects are not followed
 * (undici's request() never does without a redirect interceptor), so a 3xx counts as a failure
 * and a callback cannot be bounced to an internal address. Certificates are verified.
 */
export function createCallbackHttpClient(options: CallbackHttpClientOptions): CallbackHttpClient {
  const agent = createGuardedAgent({
    allowPrivateTargets: options.allowPrivateTargets,
    allowedPrivateRanges: options.allowedPrivateRanges,
    lookup: options.lookup,
    connectTimeoutMs: options.timeoutMs,
    responseTimeoutMs: options.timeoutMs,
    rejectUnauthorized: true,
  });
  return {
    post: async ({ url, body, headers, signal }) => {
      const response = await request(url, {
        method: 'POST',
        body,
        // Receivers can tell the service's callbacks from other traffic (and which version sent them).
        headers: { 'user-agent': SERVICE_USER_AGENT, ...headers },
        dispatcher: agent,
        signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]),
      });
      await response.body.dump({ limit: MAX_RESPONSE_BYTES }).catch(() => undefined);
      return { statusCode: response.statusCode };
    },
    close: () => agent.close(),
  };
}
