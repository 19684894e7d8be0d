import { SubdomainResolver } from '../../resolvers/subdomain.resolver';
import {
  SubdomainsRequest,
  SubdomainResultsShape,
  toSubdomainResult,
  type SubdomainPageSource,
} from '../../services/subdomains/subdomains.contract';
import type { AnyRoute } from '../route';

export const SUBDOMAIN_ROUTES: AnyRoute[] = [
  {
    method: 'GET',
    path: '/v2/subdomains',
    operationId: 'findSubdomains',
    summary: 'Enumerate subdomains (Business plan; 1 credit per 10 subdomains returned, rounded up)',
    description:
      'Subdomains the service has seen under each requested domain: host names observed by crawls (links, ' +
      "assets, redirects, CSP/CORS headers, certificate names), the domain's DNS records, and optional " +
      'background discovery. A domain asked about for the first time has its DNS records read at once and is ' +
      'examined further in the background, so a later request may return more. Names that no longer resolve ' +
      'are kept but only returned with includeUnresolvable=true. Paging: `after` continues the domain the ' +
      'cursor belongs to; the other requested domains start from their first page.',
    tag: 'Subdomain finder',
    request: SubdomainsRequest,
    resolver: [SubdomainResolver, 'subdomains'],
    present: (pages: SubdomainPageSource[]) => ({ status: 200, body: pages.map(toSubdomainResult) }),
    responses: {
      200: {
        description:
          'One subdomain result per requested domain, in the order requested (duplicates collapsed)',
        shape: SubdomainResultsShape,
      },
    },
  },
];
