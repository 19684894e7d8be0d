import { TrendResolver } from '../../resolvers/trend.resolver';
import { project } from '../../services/platform/published-shape';
import {
  CategoryTrendRequest,
  TechnologyTrendRequest,
  TrendShape,
} from '../../services/trends/trends.contract';
import type { AnyRoute } from '../route';

const DESCRIPTION =
  'No key needed (limited per client address like the catalogue, never charged). Per month, oldest first: ' +
  'the sites of the index on which it was seen, the share of the sites analysed that month (same countries ' +
  'and rank), and the fingerprint versions that saw it, with `fingerprintsChanged` marking a rule change. ' +
  'Read from aggregates kept as analyses are stored: a site counts in the country and rank it had when its ' +
  "month's first analysis was stored. See docs/api/trends.md.";

const common = { method: 'GET', tag: 'Trends', description: DESCRIPTION } as const;
const notFound = (what: string) => ({ description: `No ${what} has this slug`, shape: 'error' as const });

/** GET /v2/trends/{slug}/ and /v2/trends/categories/{slug}/: adoption per month. */
export const TRENDS_ROUTES: AnyRoute[] = [
  {
    ...common,
    path: '/v2/trends/categories/{slug}',
    operationId: 'getCategoryTrend',
    summary: 'Adoption of a category per month: sites with any of its technologies (no key needed)',
    request: CategoryTrendRequest,
    pathParams: ['slug'],
    resolver: [TrendResolver, 'categoryTrend'],
    present: (trend) => ({ status: 200, body: project(TrendShape, trend) }),
    responses: { 200: { description: 'The series', shape: TrendShape }, 404: notFound('category') },
  },
  {
    ...common,
    path: '/v2/trends/{slug}',
    operationId: 'getTechnologyTrend',
    summary: 'Adoption of a technology per month, with its versions (no key needed)',
    request: TechnologyTrendRequest,
    pathParams: ['slug'],
    resolver: [TrendResolver, 'technologyTrend'],
    present: (trend) => ({ status: 200, body: project(TrendShape, trend) }),
    responses: { 200: { description: 'The series', shape: TrendShape }, 404: notFound('technology') },
  },
];
