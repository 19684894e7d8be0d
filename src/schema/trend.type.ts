import { TrendShape } from '../services/trends/trends.contract';
import { objectTypeOf } from './zod-graphql';

/** A technology's or a category's adoption per month: the same fields as GET /v2/trends/. */
export const Trend = objectTypeOf(
  TrendShape,
  'Trend',
  'Adoption per month from the trend aggregates: sites, share of the sites analysed, versions, fingerprint versions',
);
