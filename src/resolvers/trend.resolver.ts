import { Args, Ctx, Query, Resolver } from 'type-graphql';
import { Trend } from '../schema/trend.type';
import { argsTypeOf } from '../schema/zod-graphql';
import { parseRequest } from '../services/platform/request-schema';
import {
  CategoryTrendRequest,
  TechnologyTrendRequest,
  type Trend as TrendResult,
} from '../services/trends/trends.contract';
import type { GraphQLContext } from './context';
import { PublicField } from './guards';

const TechnologyTrendArgs = argsTypeOf(TechnologyTrendRequest, 'TechnologyTrendArgs');
const CategoryTrendArgs = argsTypeOf(CategoryTrendRequest, 'CategoryTrendArgs');

/**
 * Adoption trends: aggregates over the whole index (no site is named), so public like the
 * catalogue: no key needed, limited per client address, never metered.
 */
@Resolver()
export class TrendResolver {
  @Query(() => Trend, {
    description:
      'GET /v2/trends/{slug}/: a technology per month (no key needed; NOT_FOUND for an unknown slug)',
  })
  @PublicField()
  async technologyTrend(
    @Ctx() ctx: GraphQLContext,
    @Args(() => TechnologyTrendArgs) args: object,
  ): Promise<TrendResult> {
    return ctx.services.trends.technology(parseRequest(TechnologyTrendRequest, args));
  }

  @Query(() => Trend, {
    description:
      'GET /v2/trends/categories/{slug}/: a category per month, sites with any of its technologies ' +
      '(no key needed; NOT_FOUND for an unknown slug)',
  })
  @PublicField()
  async categoryTrend(
    @Ctx() ctx: GraphQLContext,
    @Args(() => CategoryTrendArgs) args: object,
  ): Promise<TrendResult> {
    return ctx.services.trends.category(parseRequest(CategoryTrendRequest, args));
  }
}
