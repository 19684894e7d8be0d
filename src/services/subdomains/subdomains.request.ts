import { z } from 'zod';
import { normaliseRequestedDomain } from '../../subdomains';
import { field } from '../platform/request-schema';
import {
  SUBDOMAIN_LIMIT_DEFAULT,
  SUBDOMAIN_LIMIT_MAX,
  SUBDOMAIN_LIMIT_STEP,
  SUBDOMAIN_MAX_DOMAINS,
} from './subdomain-request';

/** GET /v2/subdomains/: the fields; which domain a cursor continues is the service's rule (subdomain-request.ts). */
export const SubdomainsRequest = z.object({
  domains: field.list(field.item(253).transform(field.parsedBy(normaliseRequestedDomain)), {
    min: 1,
    max: SUBDOMAIN_MAX_DOMAINS,
    required: true,
    description: 'One to ten comma-separated domain names; each is reduced to its registrable domain',
  }),
  limit: field.integer({
    min: SUBDOMAIN_LIMIT_STEP,
    max: SUBDOMAIN_LIMIT_MAX,
    multipleOf: SUBDOMAIN_LIMIT_STEP,
    default: SUBDOMAIN_LIMIT_DEFAULT,
    description: 'Subdomains per domain: a multiple of 10 from 10 to 1000',
  }),
  after: field.text({
    maxLength: 400,
    pattern: /^[A-Za-z0-9_-]+$/,
    patternText: 'must be a moreAfter value returned by this endpoint',
    description: 'The moreAfter value of a previous response',
  }),
  includeUnresolvable: field.flag({
    default: false,
    description: 'Also return names that no longer resolve',
  }),
});

export type SubdomainsInput = z.output<typeof SubdomainsRequest>;
