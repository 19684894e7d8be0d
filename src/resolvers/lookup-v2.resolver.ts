import { Args, Ctx, Query, Resolver } from 'type-graphql';
import { SiteLookupType } from '../schema/lookup-v2.type';
import { argsTypeOf } from '../schema/zod-graphql';
import { setsOf } from '../services/analysis/analysis.contract';
import { type SiteLookup, LookupV2Request } from '../services/lookup/lookup.contract';
import { parseRequest } from '../services/platform/request-schema';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';

const LookupV2Args = argsTypeOf(LookupV2Request, 'LookupV2Args');

@Resolver(() => SiteLookupType)
export class LookupV2Resolver {
  @Query(() => [SiteLookupType], {
    description: 'GET /v2/lookup/: sites from the index (or analysed now), with field sets',
  })
  @RateLimited('lookup')
  async lookupV2(@Ctx() ctx: GraphQLContext, @Args(() => LookupV2Args) args: object): Promise<SiteLookup[]> {
    const input = parseRequest(LookupV2Request, args);
    return ctx.services.lookupV2.lookup(requireCaller(ctx), {
      urls: input.urls,
      live: input.live,
      recursive: input.recursive,
      callbackUrl: input.callbackUrl,
      sets: setsOf(input.sets),
      denoise: input.denoise,
      squash: input.squash,
      window: { minAge: input.minAge, maxAge: input.maxAge },
    });
  }
}
