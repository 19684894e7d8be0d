import { JobHandlerRegistry, JobKinds, JobRunner } from '../../../src/jobs';
import { subdomainDiscoveryKey } from '../../../src/services/subdomains/subdomain.service';
import { createSubdomainDiscoveryHandler } from '../../../src/workers/subdomain-discovery.worker';
import { eventually } from '../../helpers/eventually';
import { untilNotRateLimited } from '../../helpers/test-retry';
import type { TestService } from '../../helpers/test-service';

/**
 * Runs the finder's discovery jobs the way a worker does (claim with a lease, the registered
 * handler), with nothing but that kind, so a test controls when background work happens.
 */
export function startDiscoveryRunner(service: TestService): JobRunner {
  const { services } = service.running;
  const registry = new JobHandlerRegistry().register(
    JobKinds.subdomainDiscovery,
    createSubdomainDiscoveryHandler(services.subdomains),
  );
  const runner = new JobRunner(services.queue, registry, {
    kinds: [JobKinds.subdomainDiscovery],
    concurrency: 2,
    leaseMs: 30_000,
    pollIntervalMs: 50,
    shutdownGraceMs: 1000,
  });
  runner.start();
  return runner;
}

/** Waits for the domain's discovery job to finish; fails with its status when it does not. */
export async function discoveryFinished(
  service: TestService,
  domain: string,
  timeoutMs = 30_000,
): Promise<void> {
  const { queue } = service.running.services;
  const job = await eventually(
    async () => {
      const found = await queue.findByUniqueKey(subdomainDiscoveryKey(domain));
      if (found?.status === 'succeeded' || found?.status === 'dead') return found;
      throw new Error(`its status is ${found?.status ?? 'missing'}`);
    },
    { describe: `the discovery job of ${domain} to finish`, timeoutMs, intervalMs: 50 },
  );
  if (job.status === 'dead') throw new Error(`discovery job of ${domain} is dead: ${job.lastError}`);
}

/**
 * GET /v2/subdomains/ with the given query parameters, through the 5 requests/s limit (tests
 * that walk pages send more than that); the rate-limit test sends its requests directly.
 */
export function getSubdomains(service: TestService, key: string, params: Record<string, string>) {
  return untilNotRateLimited(service, () =>
    service.request(`/v2/subdomains/?${new URLSearchParams(params)}`, { key }),
  );
}

/** Names of one REST result object, in response order. */
export function namesOf(result: { subdomains: Record<string, unknown> }): string[] {
  return Object.keys(result.subdomains);
}
