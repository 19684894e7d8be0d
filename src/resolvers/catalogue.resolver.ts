import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from './context';
import { PublicField } from './guards';
import { CatalogueCategory, CatalogueTechnology } from '../schema/catalogue.type';

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
  async technology(@Ctx() ctx: GraphQLContext, @Arg('slug') slug: string): Promise<CatalogueTechnology> {
    return ctx.services.catalogue.technology(slug);
  }

  @Query(() => [CatalogueCategory], {
    description:
      'GET /v2/categories/: every category, with its groups and number of technologies (no key needed)',
  })
  @PublicField()
  categories(@Ctx() ctx: GraphQLContext): CatalogueCategory[] {
    return ctx.services.catalogue.categories();
  }

  @Query(() => CatalogueCategory, {
    description: 'GET /v2/categories/{slug}/: one category (NOT_FOUND for an unknown slug)',
  })
  @PublicField()
  category(@Ctx() ctx: GraphQLContext, @Arg('slug') slug: string): CatalogueCategory {
    return ctx.services.catalogue.category(slug);
  }
}
