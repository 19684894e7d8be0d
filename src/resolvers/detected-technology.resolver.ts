import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from './context';
import { DetectedTechnologyType } from '../schema/technology.type';
import { unixSeconds } from '../schema/unix-time';

/** What the index knows about a detected technology beyond this one analysis. */
@Resolver(() => DetectedTechnologyType)
export class DetectedTechnologyResolver {
  @FieldResolver(() => Int, {
    nullable: true,
    description: 'UNIX seconds the index first saw it on this site',
  })
  async firstSeenAt(
    @Root() technology: DetectedTechnologyType,
    @Ctx() ctx: GraphQLContext,
  ): Promise<number | null> {
    const row = await ctx.loaders.siteTechnology.load({
      hostname: technology.siteHostname,
      slug: technology.slug,
    });
    return row ? unixSeconds(row.firstSeenAt) : null;
  }

  @FieldResolver(() => Boolean, {
    nullable: true,
    description: 'Seen on the site root path (home page) at least once',
  })
  async rootPath(
    @Root() technology: DetectedTechnologyType,
    @Ctx() ctx: GraphQLContext,
  ): Promise<boolean | null> {
    const row = await ctx.loaders.siteTechnology.load({
      hostname: technology.siteHostname,
      slug: technology.slug,
    });
    return row ? row.rootPath : null;
  }
}
