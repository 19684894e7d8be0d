import { z } from 'zod';
import { NotFoundError } from '../../errors';
import { AnalysisResolver } from '../../resolvers/analysis.resolver';
import type { LookupResult, UrlAnalysis } from '../../schema/analysis.type';
import {
  AnalyzeV1AnswerShape,
  LiveItemShape,
  RECEIVED,
  ReceivedShape,
  toAnalyzeV1Answer,
  toLiveV2Object,
  type ErrorObject,
  type LiveAnalysisSource,
  AnalyzeRequest,
  CrawlRequest,
  CrawlV1Request,
  LiveRequest,
  LookupV1Request,
} from '../../services/analysis/analysis.contract';
import { lookupV1Json, LookupMonthShape } from '../../services/lookup/lookup.contract';
import type { AnyRoute } from '../route';

const LiveItems = z.array(LiveItemShape);

/** Live v2 and Crawl v2: one page now (recursive=false), or accepted with a callback per URL (202). */
function liveRoute(path: string, method: 'live' | 'crawl', summary: string): AnyRoute {
  return {
    method: 'GET',
    path,
    operationId: method === 'live' ? 'getLiveV2' : 'getCrawlV2',
    summary,
    description:
      'recursive=false analyses one URL synchronously (several URLs: 400). Recursive requests (the default) need ' +
      'callback_url: the answer is [{url, crawl: true}] (202) and one signed callback per URL follows.',
    tag: method === 'live' ? 'Live' : 'Crawl',
    request: method === 'live' ? LiveRequest : CrawlRequest,
    resolver: [AnalysisResolver, method],
    present: (results: UrlAnalysis[]) => ({
      status: results.every((r) => r.state === 'accepted') ? 202 : 200,
      body: results.map((r) => toLiveV2Object(r as unknown as LiveAnalysisSource)),
    }),
    responses: {
      200: { description: 'Synchronous result, one object per URL', shape: LiveItems },
      202: { description: 'Accepted: results follow by callback, one per URL', shape: LiveItems },
    },
  };
}

export const ANALYSIS_ROUTES: AnyRoute[] = [
  {
    method: 'GET',
    path: '/analyze/v1',
    operationId: 'getAnalyzeV1',
    summary: 'Analyse a single page synchronously',
    description:
      'A site that cannot be analysed gives status "error" with typed errors; it counts toward the quota but costs no credits.',
    tag: 'Analyze',
    request: AnalyzeRequest,
    resolver: [AnalysisResolver, 'analyze'],
    present: (a: UrlAnalysis) => ({
      status: 200,
      body: toAnalyzeV1Answer(
        a.state === 'failed'
          ? { ok: false, errors: a.errors as ErrorObject[] }
          : { ok: true, technologies: a.technologies },
      ),
    }),
    responses: {
      200: {
        description: 'The applications found, or status error with the reasons',
        shape: AnalyzeV1AnswerShape,
      },
    },
  },
  liveRoute('/live/v2', 'live', 'Real-time analysis of up to ten sites'),
  liveRoute('/crawl/v2', 'crawl', 'Crawl up to ten sites, up to 25 pages each'),
  {
    method: 'GET',
    path: '/crawl/v1',
    operationId: 'getCrawlV1',
    summary: 'Crawl a site (up to 25 pages); the result is POSTed to callback_url',
    tag: 'Crawl',
    request: CrawlV1Request,
    resolver: [AnalysisResolver, 'crawlV1'],
    present: () => ({ status: 202, body: RECEIVED }),
    responses: { 202: { description: 'Accepted', shape: ReceivedShape } },
  },
  {
    method: 'GET',
    path: '/lookup/v1',
    operationId: 'getLookupV1',
    summary: 'Look a site up in the index (monthly history, up to six months back)',
    description:
      'No stored result: with callback_url the site is crawled and {url, applications} POSTed within two minutes (202); ' +
      'without it, 404 (still counted toward the quota). `hits` counts the page views of the site this service recorded that month.',
    tag: 'Lookup',
    request: LookupV1Request,
    resolver: [AnalysisResolver, 'lookup'],
    present: (result: LookupResult, values: { url: string }) => {
      if (result.status === 'found') return { status: 200, json: lookupV1Json(result.months) };
      if (result.status === 'received') return { status: 202, body: RECEIVED };
      throw new NotFoundError(
        `No stored result for ${values.url}; pass callback_url to have the site indexed`,
      );
    },
    responses: {
      200: { description: 'Monthly results, oldest month first', shape: z.array(LookupMonthShape) },
      202: {
        description: 'Not indexed yet: the site is crawled and the result POSTed to callback_url',
        shape: ReceivedShape,
      },
      404: { description: 'No stored result and no callback_url (counted toward the quota)', shape: 'error' },
    },
  },
];
