import { z } from 'zod';
import { LookupV2Resolver } from '../../resolvers/lookup-v2.resolver';
import {
  lookupV2AnswerJson,
  LookupV2ItemShape,
  type SiteLookup,
  LookupV2Request,
} from '../../services/lookup/lookup.contract';
import type { AnyRoute } from '../route';

export const LOOKUP_V2_ROUTES: AnyRoute[] = [
  {
    method: 'GET',
    path: '/v2/lookup',
    operationId: 'getLookupV2',
    summary: 'Look sites up in the index, with field sets (up to ten URLs)',
    description:
      'Each URL is answered from the index when a result confirmed between max_age and min_age months ago is stored ' +
      '(1 credit). Otherwise, or with live=true: recursive=false analyses one page now (1 credit when it succeeds); ' +
      'recursive=true (the default) crawls the site (5 credits, refunded when it cannot be analysed) and POSTs its ' +
      'result to callback_url, answering {url, crawl: true} now. A URL that could not be analysed gives {url, errors} ' +
      'inside a 200.',
    tag: 'Lookup',
    request: LookupV2Request,
    resolver: [LookupV2Resolver, 'lookupV2'],
    present: (lookups: SiteLookup[]) => ({ status: 200, json: lookupV2AnswerJson(lookups) }),
    responses: {
      200: {
        description: 'One object per URL: the stored or fresh result, {url, crawl: true}, or {url, errors}',
        shape: z.array(LookupV2ItemShape),
      },
    },
  },
];
