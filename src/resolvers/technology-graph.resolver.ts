import { Arg, Args, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { toChangeConnection, toSiteNode } from '../schema/change.mapper';
import { SiteTechnologyTimeline, TechnologyChangeConnection } from '../schema/change.type';
import { CatalogueCategory, CatalogueTechnology } from '../schema/catalogue.type';
import {
  CatalogueTechnologyConnection,
  listPage,
  SiteConnection,
  TechnologyVersionConnection,
} from '../schema/site-graph.type';
import { Trend } from '../schema/trend.type';
import { argsTypeOf, inputTypeOf } from '../schema/zod-graphql';
import type { ChangesInput } from '../services/changes/changes.contract';
import { parseRequest } from '../services/platform/request-schema';
import {
  CategorySiteFilterSchema,
  CategorySitesRequest,
  ListPageRequest,
  SiteFilterSchema,
  TechnologySitesRequest,
} from '../services/site-graph/site-graph.contract';
import type { RunningWhat } from '../services/site-graph/site-graph.service';
import {
  CategoryTrendRequest,
  TechnologyTrendRequest,
  type Trend as TrendResult,
} from '../services/trends/trends.contract';
import { changesInput, ChangeFilter } from './change.resolver';
import { GraphQLContext, requireCaller } from './context';
import { GraphRead, PublicField } from './guards';

const SiteFilter = inputTypeOf(
  SiteFilterSchema,
  'SiteFilter',
  'Which sites running a technology: every field given narrows them',
);
const CategorySiteFilter = inputTypeOf(
  CategorySiteFilterSchema,
  'CategorySiteFilter',
  'Which sites running some technology of a category: every field given narrows them',
);
const ListPageArgs = argsTypeOf(ListPageRequest, 'ListPageArgs');
const TechnologyTrendFieldArgs = argsTypeOf(TechnologyTrendRequest.omit({ slug: true }), 'TrendFieldArgs');
const CategoryTrendFieldArgs = argsTypeOf(
  CategoryTrendRequest.omit({ slug: true }),
  'CategoryTrendFieldArgs',
);

const FIRST = { nullable: true, description: 'Sites per page, 1 to 100 (default 20)' } as const;
const AFTER = { nullable: true, description: 'The endCursor of the previous page' } as const;

/** A page of sites as a connection (the cursor is the site id). */
async function sitesOf(
  ctx: GraphQLContext,
  what: RunningWhat,
  input: Parameters<GraphQLContext['services']['siteGraph']['sites']>[2],
): Promise<SiteConnection> {
  const page = await ctx.services.siteGraph.sites(requireCaller(ctx), what, input);
  const nodes = page.sites.map(toSiteNode);
  return Object.assign(new SiteConnection(), {
    nodes,
    edges: nodes.map((node) => ({ cursor: String(node.row.id), node })),
    pageInfo: {
      hasNextPage: page.hasNextPage,
      endCursor: nodes.length ? String(nodes[nodes.length - 1].row.id) : null,
    },
    page,
  });
}

/** What differs between a technology node and a category node of the graph. */
interface NodeKind {
  kind: 'technology' | 'category';
  root: typeof CatalogueTechnology | typeof CatalogueCategory;
  siteFilter: abstract new () => object;
  sitesRequest: typeof TechnologySitesRequest | typeof CategorySitesRequest;
  sitesDescription: string;
  trendArgs: abstract new () => object;
  trend(ctx: GraphQLContext, slug: string, args: object): Promise<TrendResult>;
  trendDescription: string;
  /** The change feed's narrowing to this node. */
  narrow(slug: string): Pick<ChangesInput, 'technologies' | 'categories'>;
  changesDescription: string;
}

/**
 * The fields a technology and a category share as nodes of the graph: the sites of the index
 * running it, its adoption trend, its changes. The catalogue fields stay public; sites and changes
 * need a key (GraphRead), the trend is public like technologyTrend.
 */
function nodeResolverOf(node: NodeKind) {
  @Resolver(() => node.root)
  class NodeResolver {
    @FieldResolver(() => SiteConnection, { description: node.sitesDescription })
    @GraphRead('changes')
    async sites(
      @Root() root: { slug: string },
      @Ctx() ctx: GraphQLContext,
      @Arg('filter', () => node.siteFilter, { nullable: true }) filter?: object | null,
      @Arg('first', () => Int, FIRST) first?: number | null,
      @Arg('after', () => String, AFTER) after?: string | null,
    ): Promise<SiteConnection> {
      const input = parseRequest(node.sitesRequest, { ...(filter ?? {}), first, after });
      return sitesOf(ctx, ctx.services.siteGraph.running(node.kind, root.slug), input);
    }

    @FieldResolver(() => Trend, { description: node.trendDescription })
    @PublicField()
    async trend(
      @Root() root: { slug: string },
      @Ctx() ctx: GraphQLContext,
      @Args(() => node.trendArgs) args: object,
    ): Promise<TrendResult> {
      ctx.notKept = true;
      return node.trend(ctx, root.slug, args);
    }

    @FieldResolver(() => TechnologyChangeConnection, { description: node.changesDescription })
    @GraphRead('changes')
    async changes(
      @Root() root: { slug: string },
      @Ctx() ctx: GraphQLContext,
      @Arg('filter', () => ChangeFilter, {
        nullable: true,
        description: 'Its technologies and categories are ignored',
      })
      filter?: object | null,
      @Arg('first', () => Int, { nullable: true, description: 'Changes per page, 1 to 1000 (default 100)' })
      first?: number | null,
      @Arg('after', () => String, AFTER) after?: string | null,
    ): Promise<TechnologyChangeConnection> {
      const input = changesInput(
        { ...(filter ?? {}), technologies: undefined, categories: undefined },
        first,
        after,
      );
      const page = await ctx.services.changes.feed(requireCaller(ctx), {
        ...input,
        ...node.narrow(root.slug),
      });
      return toChangeConnection(page);
    }
  }
  return NodeResolver;
}

/** A technology of the catalogue as a node: sites, trend and changes; and its versions below. */
export const TechnologyNodeResolver = nodeResolverOf({
  kind: 'technology',
  root: CatalogueTechnology,
  siteFilter: SiteFilter,
  sitesRequest: TechnologySitesRequest,
  sitesDescription:
    'Sites of the index running it, by site id (1 credit per site returned, with its technologies, ' +
    'enrichment and history; totalCount counts every match)',
  trendArgs: TechnologyTrendFieldArgs,
  trend: (ctx, slug, args) =>
    ctx.services.trends.technology(parseRequest(TechnologyTrendRequest, { ...args, slug })),
  trendDescription: 'Adoption per month, as technologyTrend (no key needed)',
  narrow: (slug) => ({ technologies: [slug], categories: [] }),
  changesDescription:
    'Its changes on the sites of the index, oldest first (the feed: 1 credit per 10 returned)',
});

/** A category of the catalogue as a node: sites, trend and changes; and its technologies below. */
export const CategoryNodeResolver = nodeResolverOf({
  kind: 'category',
  root: CatalogueCategory,
  siteFilter: CategorySiteFilter,
  sitesRequest: CategorySitesRequest,
  sitesDescription:
    'Sites of the index running any of its technologies, by site id (1 credit per site returned; ' +
    'totalCount counts every match)',
  trendArgs: CategoryTrendFieldArgs,
  trend: (ctx, slug, args) =>
    ctx.services.trends.category(parseRequest(CategoryTrendRequest, { ...args, slug })),
  trendDescription: 'Adoption per month, as categoryTrend (no key needed)',
  narrow: (slug) => ({ technologies: [], categories: [slug] }),
  changesDescription:
    'Changes of its technologies on the sites of the index (the feed: 1 credit per 10 returned)',
});

/** A technology's version distribution from the index. */
@Resolver(() => CatalogueTechnology)
export class TechnologyVersionsResolver {
  @FieldResolver(() => TechnologyVersionConnection, {
    description:
      'Its versions on the sites of the index where it is live, most sites first (the best version of each ' +
      "site; '' where none is known). Free; counts the technology's rows of the index",
  })
  @GraphRead('changes')
  async versions(
    @Root() technology: CatalogueTechnology,
    @Ctx() ctx: GraphQLContext,
    @Args(() => ListPageArgs) args: object,
  ): Promise<TechnologyVersionConnection> {
    const { first, after } = parseRequest(ListPageRequest, args);
    const versions = await ctx.services.siteGraph.versions(technology.slug);
    return Object.assign(new TechnologyVersionConnection(), listPage(versions, first, after));
  }
}

/** A category's technologies in the catalogue. */
@Resolver(() => CatalogueCategory)
export class CategoryTechnologiesResolver {
  @FieldResolver(() => CatalogueTechnologyConnection, {
    description: 'Its technologies in the catalogue (no key needed)',
  })
  @PublicField()
  async technologies(
    @Root() category: CatalogueCategory,
    @Ctx() ctx: GraphQLContext,
    @Args(() => ListPageArgs) args: object,
  ): Promise<CatalogueTechnologyConnection> {
    const { first, after } = parseRequest(ListPageRequest, args);
    const technologies = await ctx.services.catalogue.technologiesIn(category.slug);
    return Object.assign(new CatalogueTechnologyConnection(), listPage(technologies, first, after));
  }
}

/** A technology on a site, linked to its catalogue entry (read for every technology of a page at once). */
@Resolver(() => SiteTechnologyTimeline)
export class SiteTechnologyResolver {
  @FieldResolver(() => CatalogueTechnology, {
    nullable: true,
    description: 'Its entry in the catalogue (null when the loaded fingerprints no longer have it)',
  })
  async technology(
    @Root() technology: SiteTechnologyTimeline,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CatalogueTechnology | null> {
    return ctx.loaders.catalogueTechnology.load(technology.slug);
  }
}

/** totalCount of a page of sites: a count of every match, made only when asked for. */
@Resolver(() => SiteConnection)
export class SiteConnectionResolver {
  @FieldResolver(() => Int, {
    description:
      'Sites matching in all (a count over the matching rows of the index: asked for, it costs a read)',
  })
  async totalCount(@Root() connection: SiteConnection): Promise<number> {
    return connection.page.count();
  }
}
