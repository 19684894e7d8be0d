import { Args, Ctx, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { TOPICS } from '../platform/event-bus';
import { AnalysisCompleted, LookupResult, LookupStatus, UrlAnalysis } from '../schema/analysis.type';
import { toUrlAnalysis } from '../schema/analysis.mapper';
import { argsTypeOf } from '../schema/zod-graphql';
import {
  AnalyzeRequest,
  CrawlRequest,
  CrawlV1Request,
  LiveRequest,
  LookupV1Request,
  setsOf,
  type LiveRequestInput,
} from '../services/analysis/analysis.contract';
import type { AnalysisCompletedEvent } from '../services/analysis/site-analyzer';
import { parseRequest } from '../services/platform/request-schema';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';

const AnalyzeArgs = argsTypeOf(AnalyzeRequest, 'AnalyzeArgs');
const LiveArgs = argsTypeOf(LiveRequest, 'LiveArgs');
const CrawlArgs = argsTypeOf(CrawlRequest, 'CrawlArgs');
const CrawlV1Args = argsTypeOf(CrawlV1Request, 'CrawlV1Args');
const LookupV1Args = argsTypeOf(LookupV1Request, 'LookupV1Args');

/** Lookup v1's answer: one class, so that every answer has one shape. */
class LookupAnswer implements LookupResult {
  constructor(
    readonly status: LookupStatus,
    readonly months: LookupResult['months'],
  ) {}
}

async function analyseUrls(
  ctx: GraphQLContext,
  input: LiveRequestInput,
  form: 'live-v2' | 'crawl-v2',
): Promise<UrlAnalysis[]> {
  const outcomes = await ctx.services.analysis.liveV2(
    requireCaller(ctx),
    {
      urls: input.urls,
      callbackUrl: input.callbackUrl,
      recursive: input.recursive,
      sets: setsOf(input.sets),
    },
    form,
  );
  return outcomes.map(toUrlAnalysis);
}

@Resolver()
export class AnalysisResolver {
  @Query(() => UrlAnalysis, { description: 'GET /analyze/v1/: analyse one page now' })
  @RateLimited('analyze')
  async analyze(@Ctx() ctx: GraphQLContext, @Args(() => AnalyzeArgs) args: object): Promise<UrlAnalysis> {
    const { url, render } = parseRequest(AnalyzeRequest, args);
    return toUrlAnalysis(await ctx.services.analysis.analyzeV1(requireCaller(ctx), url, render));
  }

  @Query(() => [UrlAnalysis], {
    description:
      'GET /live/v2/: up to ten URLs; synchronous for one URL with recursive=false, else accepted with a callback',
  })
  @RateLimited('live')
  async live(@Ctx() ctx: GraphQLContext, @Args(() => LiveArgs) args: object): Promise<UrlAnalysis[]> {
    return analyseUrls(ctx, parseRequest(LiveRequest, args), 'live-v2');
  }

  @Query(() => [UrlAnalysis], {
    description: 'GET /crawl/v2/: like live, recursive crawls follow links up to 25 pages',
  })
  @RateLimited('crawl-v2')
  async crawl(@Ctx() ctx: GraphQLContext, @Args(() => CrawlArgs) args: object): Promise<UrlAnalysis[]> {
    return analyseUrls(ctx, parseRequest(CrawlRequest, args), 'crawl-v2');
  }

  @Mutation(() => Boolean, {
    description: 'GET /crawl/v1/: crawl up to 25 pages; the result is POSTed to callbackUrl',
  })
  @RateLimited('crawl-v1')
  async crawlV1(@Ctx() ctx: GraphQLContext, @Args(() => CrawlV1Args) args: object): Promise<boolean> {
    const { url, callbackUrl } = parseRequest(CrawlV1Request, args);
    await ctx.services.analysis.crawlV1(requireCaller(ctx), url, callbackUrl);
    return true;
  }

  @Query(() => LookupResult, { description: 'GET /lookup/v1/: the stored monthly history of a site' })
  @RateLimited('lookup')
  async lookup(@Ctx() ctx: GraphQLContext, @Args(() => LookupV1Args) args: object): Promise<LookupResult> {
    const { url, callbackUrl, denoise } = parseRequest(LookupV1Request, args);
    const outcome = await ctx.services.analysis.lookupV1(requireCaller(ctx), url, { callbackUrl, denoise });
    if (outcome.kind === 'found') return new LookupAnswer(LookupStatus.FOUND, outcome.months);
    return new LookupAnswer(outcome.kind === 'received' ? LookupStatus.RECEIVED : LookupStatus.NOT_FOUND, []);
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
