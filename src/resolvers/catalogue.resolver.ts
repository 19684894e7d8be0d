import { Args, Ctx, Query, Resolver } from 'type-graphql';
import { CategoryRequest, TechnologyRequest } from '../services/catalogue/catalogue.contract';
import { parseRequest } from '../services/platform/request-schema';
import type { GraphQLContext } from './context';
import { PublicField } from './guards';
import { CatalogueCategory, CatalogueTechnology } from '../schema/catalogue.type';
import { argsTypeOf } from '../schema/zod-graphql';

const TechnologyArgs = argsTypeOf(TechnologyRequest, 'TechnologyArgs');
const CategoryArgs = argsTypeOf(CategoryRequest, 'CategoryArgs');

/** The public catalogue: no key needed, limited per client address, never metered. */
@Resolver()
export class CatalogueResolver {
  @Query(() => [CatalogueTechnology], {
    description: 'GET /v2/technologies/: every technology of the loaded fingerprints (no key needed)',
  })
  @PublicField()
  async technologies(@Ctx() ctx: GraphQLContext): Promise<CatalogueTechnology[]> {
    return ctx.services.catalogue.technologies();
  }

  @Query(() => CatalogueTechnology, {
    description: 'GET /v2/technologies/{slug}/: one technology (NOT_FOUND for an unknown slug)',
  })
  @PublicField()
  async technology(
    @Ctx() ctx: GraphQLContext,
    @Args(() => TechnologyArgs) args: object,
  ): Promise<CatalogueTechnology> {
    return ctx.services.catalogue.technology(parseRequest(TechnologyRequest, args).slug);
  }

  @Query(() => [CatalogueCategory], {
    description:
      'GET /v2/categories/: every category, with its groups and number of technologies (no key needed)',
  })
  @PublicField()
  async categories(@Ctx() ctx: GraphQLContext): Promise<CatalogueCategory[]> {
    return ctx.services.catalogue.categories();
  }

  @Query(() => CatalogueCategory, {
    description: 'GET /v2/categories/{slug}/: one category (NOT_FOUND for an unknown slug)',
  })
  @PublicField()
  async category(
    @Ctx() ctx: GraphQLContext,
    @Args(() => CategoryArgs) args: object,
  ): Promise<CatalogueCategory> {
    return ctx.services.catalogue.category(parseRequest(CategoryRequest, args).slug);
  }
}
