import type { JobContext, JobHandler } from '../jobs';
import { payloadDomain } from './domain-payload';
import type { SubdomainDiscoveryPayload, SubdomainService } from '../services/subdomains/subdomain.service';

/**
 * Runs the finder's background work for a domain it has just seen for the first time: resolution
 * checks of the stored names and, when enabled, wordlist discovery and a zone transfer (see
 * SubdomainService.discover). Idempotent, so a rerun after a lost lease only refreshes "last seen"
 * and checks what is still unchecked.
 */
export function createSubdomainDiscoveryHandler(
  subdomains: SubdomainService,
): JobHandler<SubdomainDiscoveryPayload> {
  return async (payload: SubdomainDiscoveryPayload, context: JobContext) => {
    const domain = payloadDomain(payload);
    const report = await subdomains.discover(domain, context.signal);
    if (context.signal.aborted) throw new Error('subdomain discovery interrupted; the job will run again');
    context.logger.info({ ...report }, 'subdomain discovery finished');
  };
}
