import { Args, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import { SiteTechnologyTimeline } from '../schema/change.type';
import {
  ExposedSitesPageType,
  ExposedSitesType,
  ExposureItemType,
  TechnologyVulnerabilityType,
  VulnerabilityType,
} from '../schema/exposure.type';
import { argsTypeOf } from '../schema/zod-graphql';
import { parseRequest } from '../services/platform/request-schema';
import {
  AffectedSitesRequest,
  ExposedSitesRequest,
  ExposureRequest,
  VulnerabilityRequest,
  type ExposedSitesPage,
  type ExposureItem,
  type TechnologyVulnerability,
  type Vulnerability,
} from '../services/vulns/exposure.contract';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';

const ExposureArgs = argsTypeOf(ExposureRequest, 'ExposureArgs');
const ExposedSitesArgs = argsTypeOf(ExposedSitesRequest, 'ExposedSitesArgs');
const VulnerabilityArgs = argsTypeOf(VulnerabilityRequest, 'VulnerabilityArgs');
const AffectedSitesArgs = argsTypeOf(AffectedSitesRequest, 'AffectedSitesArgs');

/** Exposure: a site's vulnerabilities, a vulnerability's sites (issue 33 §3). */
@Resolver(() => VulnerabilityType)
export class ExposureResolver {
  @Query(() => [ExposureItemType], {
    description:
      'GET /v2/exposure/: per URL, the live technologies with known vulnerabilities (1 credit per URL found)',
  })
  @RateLimited('lookup')
  async exposure(
    @Ctx() ctx: GraphQLContext,
    @Args(() => ExposureArgs) args: object,
  ): Promise<ExposureItem[]> {
    const { urls } = parseRequest(ExposureRequest, args);
    return ctx.services.exposure.exposure(requireCaller(ctx), urls);
  }

  @Query(() => ExposedSitesPageType, {
    description:
      'GET /v2/exposure/sites/: the indexed sites running an affected version (1 credit per 10 returned)',
  })
  @RateLimited('changes')
  async exposedSites(
    @Ctx() ctx: GraphQLContext,
    @Args(() => ExposedSitesArgs) args: object,
  ): Promise<ExposedSitesPage> {
    const { vulnerability, ...query } = parseRequest(ExposedSitesRequest, args);
    return ctx.services.exposure.exposedSites(requireCaller(ctx), vulnerability, query);
  }

  @Query(() => VulnerabilityType, {
    description: 'An imported vulnerability by id or alias (NOT_FOUND when none is imported); not charged',
  })
  @RateLimited('changes')
  async vulnerability(
    @Ctx() ctx: GraphQLContext,
    @Args(() => VulnerabilityArgs) args: object,
  ): Promise<Vulnerability> {
    requireCaller(ctx);
    const { id } = parseRequest(VulnerabilityRequest, args);
    return (await ctx.services.exposure.vulnerability(id)).vulnerability;
  }

  @FieldResolver(() => ExposedSitesType, {
    description: 'The indexed sites running an affected version, in index order (1 credit per 10 returned)',
  })
  async affectedSites(
    @Root() vulnerability: Vulnerability,
    @Ctx() ctx: GraphQLContext,
    @Args(() => AffectedSitesArgs) args: object,
  ): Promise<Pick<ExposedSitesPage, 'sites' | 'moreAfter'>> {
    const query = parseRequest(AffectedSitesRequest, args);
    const { sites, moreAfter } = await ctx.services.exposure.exposedSites(
      requireCaller(ctx),
      vulnerability.id,
      query,
    );
    return moreAfter ? { sites, moreAfter } : { sites };
  }
}

/** A site's technologies carry their vulnerabilities (GraphQL site(domain) { technologies { vulnerabilities } }). */
@Resolver(() => SiteTechnologyTimeline)
export class SiteTechnologyExposureResolver {
  @FieldResolver(() => [TechnologyVulnerabilityType], {
    description:
      'Known vulnerabilities of this technology at each version on the site now (currentVersions): certain when ' +
      'one is in an affected range, possible when no version was detected; empty once it is no longer on the site',
  })
  async vulnerabilities(
    @Root() technology: SiteTechnologyTimeline,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TechnologyVulnerability[]> {
    if (!technology.live) return [];
    // Batched: one read of the records for all the technologies of all the sites in the answer.
    return ctx.loaders.technologyVulnerabilities.load({
      slug: technology.slug,
      versions: technology.currentVersions,
    });
  }
}
