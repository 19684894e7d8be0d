import type { Config } from '../platform/config';
import { resolverLookup } from '../fetch/browser';
import { JOB_KINDS, JobKinds, JobRunnerOptions } from '../jobs';
import type { CallbackHttpClientOptions } from './callback-http-client';

/**
 * The settings of the job system in one place, so the API's embedded worker (npm start) and the
 * worker processes (npm run worker) run jobs the same way.
 */
export function jobRunnerOptions(config: Config): JobRunnerOptions {
  return {
    kinds: JOB_KINDS,
    concurrency: config.WORKER_CONCURRENCY,
    // Deliveries are short and time-sensitive: their own slots, claimed before any crawl.
    express: { kinds: [JobKinds.callbackDelivery], concurrency: config.CALLBACK_WORKER_CONCURRENCY },
    // Background crawls wait on remote sites nearly all the time: many slots of their own.
    crawl: { kinds: [JobKinds.siteIndex], concurrency: config.CRAWL_WORKER_CONCURRENCY },
    leaseMs: config.JOB_LEASE_SECONDS * 1000,
    pollIntervalMs: config.JOB_POLL_INTERVAL_MS,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
  };
}

/** Callback hosts are resolved through DNS_SERVERS, like every other name the service looks up. */
export function callbackHttpClientOptions(config: Config): CallbackHttpClientOptions {
  return {
    timeoutMs: config.CALLBACK_TIMEOUT_MS,
    allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS,
    allowedPrivateRanges: config.ALLOWED_PRIVATE_RANGES,
    lookup: resolverLookup(config.DNS_SERVERS, config.DNS_TIMEOUT_MS),
  };
}
