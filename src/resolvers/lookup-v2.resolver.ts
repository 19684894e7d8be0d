import { Args, ArgsType, Ctx, Field, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';
import { SiteLookupType } from '../schema/lookup-v2.type';
import { lookupV2Json, type SiteLookup } from '../services/lookup/lookup-v2.presenter';
import { ValidationError } from '../errors';
import { parseFieldSets, parseUrlList } from './analysis-args';

@ArgsType()
class LookupV2Args {
  @Field(() => [String], { description: '1-10 URLs (exactly 1 when recursive is false)' })
  urls: string[];

  @Field({ defaultValue: false, description: 'Analyse now instead of answering from the index' })
  live: boolean;

  @Field({
    defaultValue: true,
    description: 'true: crawl sites without a stored result and call back; false: analyse one page now',
  })
  recursive: boolean;

  @Field(() => String, { nullable: true, description: 'Required when some URL will be answered by callback' })
  callbackUrl: string | null;

  @Field(() => [String], { defaultValue: [], description: 'Field sets, or all' })
  sets: string[];

  @Field({ defaultValue: true, description: 'Leave out results under 50% confidence' })
  denoise: boolean;

  @Field(() => Int, {
    defaultValue: 0,
    description: 'Months (0-11): stored results must be at least this old',
  })
  minAge: number;

  @Field(() => Int, {
    defaultValue: 2,
    description: 'Months (1-12): stored results must be at most this old',
  })
  maxAge: number;

  @Field({ defaultValue: true, description: 'false: one entry per month of history (months)' })
  squash: boolean;
}

function monthsArg(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ValidationError(name, `${name} must be a whole number between ${min} and ${max}`);
  return value;
}

@Resolver(() => SiteLookupType)
export class LookupV2Resolver {
  @FieldResolver(() => String)
  json(@Root() lookup: SiteLookup): string {
    return lookupV2Json(lookup);
  }

  @Query(() => [SiteLookupType], {
    description: 'GET /v2/lookup/: sites from the index (or analysed now), with field sets',
  })
  @RateLimited('lookup')
  async lookupV2(@Ctx() ctx: GraphQLContext, @Args() args: LookupV2Args): Promise<SiteLookupType[]> {
    const lookups = await ctx.services.lookupV2.lookup(requireCaller(ctx), {
      urls: parseUrlList(args.urls),
      live: args.live,
      recursive: args.recursive,
      callbackUrl: args.callbackUrl ?? undefined,
      sets: parseFieldSets(args.sets),
      denoise: args.denoise,
      squash: args.squash,
      window: {
        minAge: monthsArg('min_age', args.minAge, 0, 11),
        maxAge: monthsArg('max_age', args.maxAge, 1, 12),
      },
    });
    return lookups as SiteLookupType[];
  }
}
