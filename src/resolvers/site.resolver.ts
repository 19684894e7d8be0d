import { Arg, Args, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { toChangeConnection, toIndexedSite, toTechnologyTimeline } from '../schema/change.mapper';
import { IndexedSite, SiteTechnologyTimeline, TechnologyChangeConnection } from '../schema/change.type';
import { SiteEnrichmentType, SiteHistoryMonth } from '../schema/site-graph.type';
import { argsTypeOf } from '../schema/zod-graphql';
import { SiteTimelineRequest } from '../services/changes/changes.contract';
import { SiteHistoryRequest } from '../services/site-graph/site-graph.contract';
import { parseRequest } from '../services/platform/request-schema';
import { changesInput, ChangeFilter } from './change.resolver';
import { GraphQLContext, requireCaller } from './context';
import { GraphRead, RateLimited } from './guards';

const SiteArgs = argsTypeOf(SiteTimelineRequest, 'SiteArgs');
const SiteHistoryArgs = argsTypeOf(SiteHistoryRequest, 'SiteHistoryArgs');

/**
 * A site of the index, a node of the graph: reached by site(domain) or from a technology's or a
 * category's sites. Its technologies (each linked to the catalogue), enrichment and history are
 * read for every site of a page at once (the request's dataloaders); they are part of what the
 * site was charged. Its changes are the feed's, charged as the feed.
 */
@Resolver(() => IndexedSite)
export class SiteResolver {
  @Query(() => IndexedSite, {
    nullable: true,
    description:
      'A site of the index with the timeline of each technology (first and last seen, live, versions) ' +
      'and its changes; null when the site is not in the index. 1 credit when found (its technologies, ' +
      'enrichment and history included); its changes are charged as GET /v2/changes/.',
  })
  @RateLimited('changes')
  async site(@Ctx() ctx: GraphQLContext, @Args(() => SiteArgs) args: object): Promise<IndexedSite | null> {
    const { domain } = parseRequest(SiteTimelineRequest, args);
    const site = await ctx.services.changes.site(requireCaller(ctx), domain);
    return site ? toIndexedSite(site) : null;
  }

  @FieldResolver(() => [SiteTechnologyTimeline], {
    description:
      'Every technology ever seen on it, live ones first: version, confidence, evidence (pages), timeline, ' +
      'and its catalogue entry (`technology`)',
  })
  async technologies(
    @Root() site: IndexedSite,
    @Ctx() ctx: GraphQLContext,
  ): Promise<SiteTechnologyTimeline[]> {
    if (site.technologies) return site.technologies;
    return (await ctx.loaders.siteTimeline.load(site.row.id)).map(toTechnologyTimeline);
  }

  @FieldResolver(() => SiteEnrichmentType, {
    nullable: true,
    description: "The site's stored enriched record, every field set (null: never enriched)",
  })
  async enrichment(@Root() site: IndexedSite, @Ctx() ctx: GraphQLContext): Promise<object | null> {
    return ctx.loaders.siteEnrichment.load(site.row);
  }

  @FieldResolver(() => [SiteHistoryMonth], {
    description: 'The months of its stored history (what Lookup v1 answers from), oldest first',
  })
  async history(
    @Root() site: IndexedSite,
    @Ctx() ctx: GraphQLContext,
    @Args(() => SiteHistoryArgs) args: object,
  ): Promise<SiteHistoryMonth[]> {
    const { months } = parseRequest(SiteHistoryRequest, args);
    return ctx.loaders.siteHistory.load({ siteId: site.row.id, months });
  }

  @FieldResolver(() => TechnologyChangeConnection, {
    description:
      "The site's changes, oldest first (the feed for this site: 1 credit per 10 returned; one read per site, " +
      'not batched)',
  })
  @GraphRead('changes')
  async changes(
    @Root() site: IndexedSite,
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => ChangeFilter, { nullable: true, description: 'Its domains are ignored' })
    filter?: object | null,
    @Arg('first', () => Int, { nullable: true, description: 'Changes per page, 1 to 1000 (default 100)' })
    first?: number | null,
    @Arg('after', () => String, { nullable: true, description: 'An endCursor to continue after' })
    after?: string | null,
  ): Promise<TechnologyChangeConnection> {
    const input = changesInput({ ...(filter ?? {}), domains: undefined }, first, after);
    input.domains = [{ hostname: site.domain, domain: null }];
    const page = await ctx.services.changes.feed(requireCaller(ctx), input);
    return toChangeConnection(page);
  }
}
