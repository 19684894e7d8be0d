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

/** The feed narrowed to a technology or a category (the filter's own technologies and categories are ignored). */
async function changesOf(
  ctx: GraphQLContext,
  narrow: Pick<ChangesInput, 'technologies' | 'categories'>,
  filter: object | null | undefined,
  first: number | null | undefined,
  after: string | null | undefined,
): Promise<TechnologyChangeConnection> {
  const input = changesInput(
    { ...(filter ?? {}), technologies: undefined, categories: undefined },
    first,
    after,
  );
  const page = await ctx.services.changes.feed(requireCaller(ctx), { ...input, ...narrow });
  return toChangeConnection(page);
}

/**
 * A technology of the catalogue as a node of the graph: the sites of the index running it, its
 * adoption trend, its version distribution and its changes. The catalogue fields stay public; these
 * need a key (the trend excepted, public like technologyTrend).
 */
@Resolver(() => CatalogueTechnology)
export class TechnologyGraphResolver {
  @FieldResolver(() => SiteConnection, {
    description:
      'Sites of the index running it, by site id (1 credit per site returned, with its technologies, ' +
      'enrichment and history; totalCount counts every match)',
  })
  @GraphRead('changes')
  async sites(
    @Root() technology: CatalogueTechnology,
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => SiteFilter, { nullable: true }) filter?: object | null,
    @Arg('first', () => Int, FIRST) first?: number | null,
    @Arg('after', () => String, AFTER) after?: string | null,
  ): Promise<SiteConnection> {
    const input = parseRequest(TechnologySitesRequest, { ...(filter ?? {}), first, after });
    return sitesOf(ctx, ctx.services.siteGraph.running('technology', technology.slug), input);
  }

  @FieldResolver(() => Trend, { description: 'Adoption per month, as technologyTrend (no key needed)' })
  @PublicField()
  async trend(
    @Root() technology: CatalogueTechnology,
    @Ctx() ctx: GraphQLContext,
    @Args(() => TechnologyTrendFieldArgs) args: object,
  ): Promise<TrendResult> {
    ctx.notKept = true;
    return ctx.services.trends.technology(
      parseRequest(TechnologyTrendRequest, { ...args, slug: technology.slug }),
    );
  }

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

  @FieldResolver(() => TechnologyChangeConnection, {
    description: 'Its changes on the sites of the index, oldest first (the feed: 1 credit per 10 returned)',
  })
  @GraphRead('changes')
  async changes(
    @Root() technology: CatalogueTechnology,
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
    return changesOf(ctx, { technologies: [technology.slug], categories: [] }, filter, first, after);
  }
}

/** A category of the catalogue as a node of the graph: sites, trend, technologies, changes. */
@Resolver(() => CatalogueCategory)
export class CategoryGraphResolver {
  @FieldResolver(() => SiteConnection, {
    description:
      'Sites of the index running any of its technologies, by site id (1 credit per site returned; ' +
      'totalCount counts every match)',
  })
  @GraphRead('changes')
  async sites(
    @Root() category: CatalogueCategory,
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => CategorySiteFilter, { nullable: true }) filter?: object | null,
    @Arg('first', () => Int, FIRST) first?: number | null,
    @Arg('after', () => String, AFTER) after?: string | null,
  ): Promise<SiteConnection> {
    const input = parseRequest(CategorySitesRequest, { ...(filter ?? {}), first, after });
    return sitesOf(ctx, ctx.services.siteGraph.running('category', category.slug), input);
  }

  @FieldResolver(() => Trend, { description: 'Adoption per month, as categoryTrend (no key needed)' })
  @PublicField()
  async trend(
    @Root() category: CatalogueCategory,
    @Ctx() ctx: GraphQLContext,
    @Args(() => CategoryTrendFieldArgs) args: object,
  ): Promise<TrendResult> {
    ctx.notKept = true;
    return ctx.services.trends.category(parseRequest(CategoryTrendRequest, { ...args, slug: category.slug }));
  }

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

  @FieldResolver(() => TechnologyChangeConnection, {
    description: 'Changes of its technologies on the sites of the index (the feed: 1 credit per 10 returned)',
  })
  @GraphRead('changes')
  async changes(
    @Root() category: CatalogueCategory,
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
    return changesOf(ctx, { technologies: [], categories: [category.slug] }, filter, first, after);
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
