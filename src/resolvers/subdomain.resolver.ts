import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';
import { toSubdomainResult } from '../schema/subdomain.mapper';
import { SubdomainResult } from '../schema/subdomain.type';

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
    @Arg('domains', () => [String], { description: 'One to ten domain names' }) domains: string[],
    @Arg('limit', () => Int, {
      nullable: true,
      description: 'Names per domain: a multiple of 10, 10-1000 (default 100)',
    })
    limit?: number | null,
    @Arg('after', () => String, { nullable: true, description: 'The moreAfter value of a previous result' })
    after?: string | null,
    @Arg('includeUnresolvable', () => Boolean, {
      nullable: true,
      description: 'Also return names that no longer resolve (default false)',
    })
    includeUnresolvable?: boolean | null,
  ): Promise<SubdomainResult[]> {
    const pages = await ctx.services.subdomains.find(requireCaller(ctx), {
      domains,
      limit: limit ?? undefined,
      after: after ?? undefined,
      includeUnresolvable: includeUnresolvable ?? undefined,
    });
    return pages.map(toSubdomainResult);
  }
}
