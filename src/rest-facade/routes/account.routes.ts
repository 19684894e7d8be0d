import type { Family } from '../../plans/plan-catalog';
import { AccountResolver } from '../../resolvers/account.resolver';
import { CreditBalanceShape, UsageShape } from '../../services/platform/account.contract';
import { project } from '../../services/platform/published-shape';
import type { AnyRoute } from '../route';

const balanceRoute: AnyRoute = {
  method: 'GET',
  path: '/v2/credits/balance',
  operationId: 'getCreditBalance',
  summary: 'Read the credit balance',
  tag: 'Credits',
  resolver: [AccountResolver, 'creditBalance'],
  present: (balance) => ({ status: 200, body: project(CreditBalanceShape, balance) }),
  responses: { 200: { description: 'The balance', shape: CreditBalanceShape } },
};

/** Every resource path that has a `<resource path>/usage` companion, with its rate-limit family. */
export const USAGE_PATHS: readonly { path: string; family: Family; tag: string }[] = [
  { path: '/v2/lists', family: 'lists', tag: 'Lists' },
  { path: '/dataset/v1', family: 'dataset', tag: 'Dataset' },
  { path: '/live/v2', family: 'live', tag: 'Live' },
  { path: '/crawl/v2', family: 'crawl-v2', tag: 'Crawl' },
  { path: '/crawl/v1', family: 'crawl-v1', tag: 'Crawl' },
  { path: '/lookup/v1', family: 'lookup', tag: 'Lookup' },
  { path: '/v2/lookup', family: 'lookup', tag: 'Lookup' },
  { path: '/analyze/v1', family: 'analyze', tag: 'Analyze' },
  { path: '/v2/verify', family: 'verify', tag: 'Email verification' },
  { path: '/v2/subdomains', family: 'subdomains', tag: 'Subdomain finder' },
  { path: '/v2/credits', family: 'credits', tag: 'Credits' },
];

/**
 * The `<resource path>/usage` routes of the resources `served` actually holds: a usage path of a
 * resource the service does not serve (lists, datasets) is an unknown path (404), not a 200.
 */
export function usageRoutesFor(served: readonly AnyRoute[]): AnyRoute[] {
  const isServed = (path: string) => served.some((r) => r.path === path || r.path.startsWith(`${path}/`));
  return USAGE_PATHS.filter(({ path }) => isServed(path)).map(({ path, family, tag }) => ({
    method: 'GET',
    path: `${path}/usage`,
    operationId: `getUsage${path.replace(/[^a-z0-9]+(.)/gi, (_, c: string) => c.toUpperCase())}`,
    summary: `Quota and limits of the plan for ${path}/ (counts toward the quota)`,
    tag,
    resolver: [AccountResolver, 'usage'],
    args: () => [family],
    present: (usage) => ({ status: 200, body: project(UsageShape, usage) }),
    responses: { 200: { description: 'The usage object', shape: UsageShape } },
  }));
}

export const ACCOUNT_ROUTES: AnyRoute[] = [balanceRoute];
