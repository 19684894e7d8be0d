import { Args, Ctx, Query, Resolver } from 'type-graphql';
import { toSubdomainResult } from '../schema/subdomain.mapper';
import { SubdomainResult } from '../schema/subdomain.type';
import { argsTypeOf } from '../schema/zod-graphql';
import { parseRequest } from '../services/platform/request-schema';
import { SubdomainsRequest } from '../services/subdomains/subdomains.contract';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';

const SubdomainsArgs = argsTypeOf(SubdomainsRequest, 'SubdomainsArgs');

@Resolver()
export class SubdomainResolver {
  @Query(() => [SubdomainResult], {
    description:
      'GET /v2/subdomains/: one page of subdomains per requested domain (Business plan; 1 credit per 10 ' +
      'subdomains returned, rounded up over the request). A domain seen for the first time has its DNS ' +
      "records read at once and is examined further in the background. Pagination: pass a result's " +
      'moreAfter as `after` (it continues that domain; the other domains start from their first page).',
  })
  @RateLimited('subdomains')
  async subdomains(
    @Ctx() ctx: GraphQLContext,
    @Args(() => SubdomainsArgs) args: object,
  ): Promise<SubdomainResult[]> {
    const pages = await ctx.services.subdomains.find(
      requireCaller(ctx),
      parseRequest(SubdomainsRequest, args),
    );
    return pages.map(toSubdomainResult);
  }
}
