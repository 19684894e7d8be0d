import type { SubdomainPage } from '../services/subdomains/subdomain.service';
import { Subdomain, SubdomainResult } from './subdomain.type';
import { unixSeconds } from './unix-time';

/** A service page becomes the published type here and only here. */
export function toSubdomainResult(page: SubdomainPage): SubdomainResult {
  return Object.assign(new SubdomainResult(), {
    domain: page.domain,
    subdomains: page.subdomains.map((s) =>
      Object.assign(new Subdomain(), {
        name: s.name,
        createdAt: unixSeconds(s.createdAt),
        updatedAt: unixSeconds(s.updatedAt),
      }),
    ),
    moreAfter: page.moreAfter ?? null,
  });
}
