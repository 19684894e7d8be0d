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

/**
 * The host of a site.index job that refreshes a known site (FreshnessService): a host name as the
 * index keys sites (subdomains included, an optional port), never a URL or a path.
 */
export function payloadHost(payload: { host?: unknown } | null | undefined): string {
  const host = typeof payload?.host === 'string' ? payload.host : '';
  if (
    !/^(?=.{1,253}(?::\d{1,5})?$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/.test(
      host,
    )
  )
    throw new PermanentJobError(`not a host name: ${JSON.stringify(host)}`);
  return host;
}
