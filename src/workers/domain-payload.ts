import { PermanentJobError } from '../jobs';
import { normaliseRequestedDomain } from '../subdomains';

/**
 * The domain of a job payload. Services write payloads with normalised registrable domains, so
 * anything else is a malformed job that would never get better on a retry: it goes dead at once.
 */
export function payloadDomain(payload: { domain?: unknown } | null | undefined): string {
  const domain = typeof payload?.domain === 'string' ? payload.domain : '';
  let normalised: string | null;
  try {
    normalised = normaliseRequestedDomain(domain);
  } catch {
    normalised = null;
  }
  if (normalised !== domain)
    throw new PermanentJobError(`not a registrable domain: ${JSON.stringify(domain)}`);
  return domain;
}
