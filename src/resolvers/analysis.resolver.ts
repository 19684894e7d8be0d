import { Arg, Args, ArgsType, Ctx, Field, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { TOPICS } from '../platform/event-bus';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';
import {
  AnalysisCompleted,
  LookupResult,
  LookupStatus,
  RenderChoice,
  UrlAnalysis,
} from '../schema/analysis.type';
import { toUrlAnalysis } from '../schema/analysis.mapper';
import { lookupV1Json } from '../services/lookup/lookup-v1-answer';
import type { AnalysisCompletedEvent } from '../services/analysis/site-analyzer';
import { parseFieldSets, parseUrlList } from './analysis-args';
import { parseHttpUrl } from '../services/platform/url-input';

/** The arguments Live v2 and Crawl v2 share. */
@ArgsType()
class LiveArgs {
  @Field(() => [String])
  urls: string[];

  @Field(() => String, { nullable: true })
  callbackUrl: string | null;

  @Field({ defaultValue: true })
  recursive: boolean;

  @Field(() => [String], { defaultValue: [] })
  sets: string[];
}

/**
 * Lookup v1's answer: the JSON text of its months rendered only when the operation selects it (the
 * REST facade's does). A class, so that every answer has one shape (an object literal with a
 * getter of its own gave each answer a shape of its own).
 */
class LookupAnswer implements LookupResult {
  constructor(
    readonly status: LookupStatus,
    readonly months: LookupResult['months'],
  ) {}

  get monthsJson(): string {
    return lookupV1Json(this.months);
  }
}

async function analyseUrls(
  ctx: GraphQLContext,
  args: LiveArgs,
  form: 'live-v2' | 'crawl-v2',
): Promise<UrlAnalysis[]> {
  const input = {
    urls: parseUrlList(args.urls),
    callbackUrl: args.callbackUrl ?? undefined,
    recursive: args.recursive,
    sets: parseFieldSets(args.sets),
  };
  return (await ctx.services.analysis.liveV2(requireCaller(ctx), input, form)).map(toUrlAnalysis);
}

@Resolver()
export class AnalysisResolver {
  @Query(() => UrlAnalysis, { description: 'GET /analyze/v1/: analyse one page now' })
  @RateLimited('analyze')
  async analyze(
    @Ctx() ctx: GraphQLContext,
    @Arg('url') url: string,
    @Arg('render', () => RenderChoice, {
      nullable: true,
      description: 'Browser rendering; RENDER when absent',
    })
    render: RenderChoice | null,
  ): Promise<UrlAnalysis> {
    const caller = requireCaller(ctx);
    return toUrlAnalysis(
      await ctx.services.analysis.analyzeV1(caller, parseHttpUrl('url', url), render ?? undefined),
    );
  }

  @Query(() => [UrlAnalysis], {
    description:
      'GET /live/v2/: up to ten URLs; synchronous for one URL with recursive=false, else accepted with a callback',
  })
  @RateLimited('live')
  async live(@Ctx() ctx: GraphQLContext, @Args() args: LiveArgs): Promise<UrlAnalysis[]> {
    return analyseUrls(ctx, args, 'live-v2');
  }

  @Query(() => [UrlAnalysis], {
    description: 'GET /crawl/v2/: like live, recursive crawls follow links up to 25 pages',
  })
  @RateLimited('crawl-v2')
  async crawl(@Ctx() ctx: GraphQLContext, @Args() args: LiveArgs): Promise<UrlAnalysis[]> {
    return analyseUrls(ctx, args, 'crawl-v2');
  }

  @Mutation(() => Boolean, {
    description: 'GET /crawl/v1/: crawl up to 25 pages; the result is POSTed to callbackUrl',
  })
  @RateLimited('crawl-v1')
  async crawlV1(
    @Ctx() ctx: GraphQLContext,
    @Arg('url') url: string,
    @Arg('callbackUrl') callbackUrl: string,
  ): Promise<boolean> {
    await ctx.services.analysis.crawlV1(requireCaller(ctx), parseHttpUrl('url', url), callbackUrl);
    return true;
  }

  @Query(() => LookupResult, { description: 'GET /lookup/v1/: the stored monthly history of a site' })
  @RateLimited('lookup')
  async lookup(
    @Ctx() ctx: GraphQLContext,
    @Arg('url') url: string,
    @Arg('callbackUrl', () => String, { nullable: true }) callbackUrl: string | null,
    @Arg('denoise', { defaultValue: true }) denoise: boolean,
  ): Promise<LookupResult> {
    const outcome = await ctx.services.analysis.lookupV1(requireCaller(ctx), parseHttpUrl('url', url), {
      callbackUrl: callbackUrl ?? undefined,
      denoise,
    });
    const months = outcome.kind === 'found' ? outcome.months : [];
    const status =
      outcome.kind === 'found'
        ? LookupStatus.FOUND
        : outcome.kind === 'received'
          ? LookupStatus.RECEIVED
          : LookupStatus.NOT_FOUND;
    return new LookupAnswer(status, months);
  }

  @Subscription(() => AnalysisCompleted, {
    topics: TOPICS.analysisCompleted,
    filter: ({ payload, context }: { payload: AnalysisCompletedEvent; context: GraphQLContext }) =>
      payload.accountId !== null && payload.accountId === context.caller?.principal.accountId,
    description: "Pushes each of the caller's analyses as it completes (synchronous and background ones)",
  })
  analysisCompleted(@Root() event: AnalysisCompletedEvent): AnalysisCompleted {
    return { url: event.url, ok: event.ok, technologies: event.technologies, pages: event.pages };
  }
}
