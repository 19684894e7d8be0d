import { Arg, Args, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { toChangeConnection, toIndexedSite } from '../schema/change.mapper';
import { IndexedSite, TechnologyChangeConnection } from '../schema/change.type';
import { argsTypeOf } from '../schema/zod-graphql';
import { SiteTimelineRequest } from '../services/changes/changes.contract';
import { parseRequest } from '../services/platform/request-schema';
import { changesInput, ChangeFilter } from './change.resolver';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';

const SiteArgs = argsTypeOf(SiteTimelineRequest, 'SiteArgs');

@Resolver(() => IndexedSite)
export class SiteResolver {
  @Query(() => IndexedSite, {
    nullable: true,
    description:
      'A site of the index with the timeline of each technology (first and last seen, live, versions) ' +
      'and its changes; null when the site is not in the index. 1 credit when found; its changes are ' +
      'charged as GET /v2/changes/.',
  })
  @RateLimited('changes')
  async site(@Ctx() ctx: GraphQLContext, @Args(() => SiteArgs) args: object): Promise<IndexedSite | null> {
    const { domain } = parseRequest(SiteTimelineRequest, args);
    const site = await ctx.services.changes.site(requireCaller(ctx), domain);
    return site ? toIndexedSite(site) : null;
  }

  @FieldResolver(() => TechnologyChangeConnection, {
    description: "The site's changes, oldest first (the feed for this site: 1 credit per 10 returned)",
  })
  async changes(
    @Root() site: IndexedSite,
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => ChangeFilter, { nullable: true, description: 'Its domains are ignored' })
    filter?: object | null,
    @Arg('first', () => Int, { nullable: true }) first?: number | null,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
  ): Promise<TechnologyChangeConnection> {
    const input = changesInput({ ...(filter ?? {}), domains: undefined }, first, after);
    input.domains = [{ hostname: site.domain, domain: null }];
    const page = await ctx.services.changes.feed(requireCaller(ctx), input);
    return toChangeConnection(page);
  }
}
