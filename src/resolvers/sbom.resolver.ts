import { Args, Ctx, Query, Resolver } from 'type-graphql';
import { SiteSbomType } from '../schema/sbom.type';
import { unixSeconds } from '../schema/unix-time';
import { argsTypeOf } from '../schema/zod-graphql';
import { parseRequest } from '../services/platform/request-schema';
import { SbomRequest, type SiteSbom } from '../services/sbom/sbom.contract';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';

const SbomArgs = argsTypeOf(SbomRequest, 'SbomArgs');

/** The GraphQL form of a site's SBOM; the service's answer is kept for the REST rendering. */
export type SbomResult = SiteSbomType & { source: SiteSbom };

@Resolver(() => SiteSbomType)
export class SbomResolver {
  @Query(() => SiteSbomType, {
    nullable: true,
    description:
      'GET /v2/sbom/: what the index knows a site runs, as SBOM components (null when the index does not know the site). ' +
      'Charged as a stored lookup when found.',
  })
  @RateLimited('lookup')
  async sbom(@Ctx() ctx: GraphQLContext, @Args(() => SbomArgs) args: object): Promise<SbomResult | null> {
    const input = parseRequest(SbomRequest, args);
    const sbom = await ctx.services.sbom.sbom(requireCaller(ctx), input.url);
    if (!sbom) return null;
    return {
      source: sbom,
      url: sbom.url,
      hostname: sbom.hostname,
      lastAnalyzedAt: unixSeconds(sbom.lastAnalyzedAt),
      components: sbom.components.map((c) => ({
        ...c,
        firstSeenAt: unixSeconds(c.firstSeenAt),
        lastSeenAt: unixSeconds(c.lastSeenAt),
      })),
    };
  }
}
