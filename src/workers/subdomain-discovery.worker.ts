import { PermanentJobError, type JobContext, type JobHandler } from '../jobs';
import type { SubdomainDiscoveryPayload, SubdomainService } from '../services/subdomain.service';
import { normaliseRequestedDomain } from '../subdomains';

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
    const domain = typeof payload?.domain === 'string' ? payload.domain : '';
    let normalised: string | null;
    try {
      normalised = normaliseRequestedDomain(domain);
    } catch {
      normalised = null;
    }
    // Payloads are written by SubdomainService with normalised domains; anything else would never
    // get better on a retry.
    if (normalised !== domain)
      throw new PermanentJobError(`not a registrable domain: ${JSON.stringify(domain)}`);
    const report = await subdomains.discover(domain, context.signal);
    if (context.signal.aborted) throw new Error('subdomain discovery interrupted; the job will run again');
    context.logger.info({ ...report }, 'subdomain discovery finished');
  };
}
