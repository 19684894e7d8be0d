import { z } from 'zod';
import { LeadListResolver } from '../../resolvers/lead-list.resolver';
import type { ListSummaryView, ListView } from '../../services/lists/lead-list.service';
import {
  FinalizeListRequest,
  ListCreateRequest,
  ListIdRequest,
  ListCreatedShape,
  ListDeletedShape,
  ListFinalizedShape,
  ListShape,
  ListSummaryShape,
  toList,
  toListSummaries,
} from '../../services/lists/lists.contract';
import { project } from '../../services/platform/published-shape';
import type { AnyRoute } from '../route';

/**
 * The Lists family (Business plan): POST/GET /v2/lists, GET/POST/DELETE /v2/lists/{id}. Bodies are
 * JSON with the published field names (ListCreateRequest holds every rule). Downloads are served by
 * src/http/list-downloads.ts.
 */
const notFound = { description: "No such list (or another account's)", shape: 'error' } as const;

export const LISTS_ROUTES: AnyRoute[] = [
  {
    method: 'GET',
    path: '/v2/lists',
    operationId: 'getLists',
    summary: 'The lead lists of the account, summary form (Business plan)',
    tag: 'Lists',
    resolver: [LeadListResolver, 'lists'],
    present: (lists: ListSummaryView[]) => ({ status: 200, body: toListSummaries(lists) }),
    responses: { 200: { description: 'Summary records, newest first', shape: z.array(ListSummaryShape) } },
  },
  {
    method: 'POST',
    path: '/v2/lists',
    operationId: 'createList',
    summary: 'Create a lead list (asynchronous; Business plan; free)',
    description:
      'Validates the request and starts the calculation: {id, status: Calculating}. The list becomes Ready (rows, ' +
      'setRows, totalCredits, sampleUrl; callbackUrl is notified and the listReady subscription fires), ' +
      'Insufficient (fewer websites than LISTS_MIN_WEBSITES) or Failed. At most 25 creations per day and 3 lists ' +
      'Calculating at once per account (429 beyond).',
    tag: 'Lists',
    request: ListCreateRequest,
    resolver: [LeadListResolver, 'createList'],
    present: (created) => ({ status: 200, body: project(ListCreatedShape, created) }),
    responses: { 200: { description: 'The new list, Calculating', shape: ListCreatedShape } },
  },
  {
    method: 'GET',
    path: '/v2/lists/{id}',
    operationId: 'getList',
    summary: 'One lead list, full form',
    tag: 'Lists',
    request: ListIdRequest,
    pathParams: ['id'],
    resolver: [LeadListResolver, 'list'],
    present: (list: ListView) => ({ status: 200, body: toList(list) }),
    responses: { 200: { description: 'The full list record', shape: ListShape }, 404: notFound },
  },
  {
    method: 'POST',
    path: '/v2/lists/{id}',
    operationId: 'finalizeList',
    summary: 'Finalize (buy) a Ready list: 1 credit per website',
    description:
      "spendCredits must equal the list's totalCredits (400 otherwise); 403 when the balance is too low (the list " +
      'stays Ready); 409 when the list is not Ready. The charge and its ledger row commit with the Complete status.',
    tag: 'Lists',
    request: FinalizeListRequest,
    pathParams: ['id'],
    resolver: [LeadListResolver, 'finalizeList'],
    present: (finalized) => ({ status: 200, body: project(ListFinalizedShape, finalized) }),
    responses: {
      200: {
        description: 'The list, Complete, with the signed link to its ZIP file',
        shape: ListFinalizedShape,
      },
      404: notFound,
      409: {
        description: 'The list is not Ready (Calculating, Failed, Insufficient or already Complete)',
        shape: 'error',
      },
    },
  },
  {
    method: 'DELETE',
    path: '/v2/lists/{id}',
    operationId: 'deleteList',
    summary: 'Delete a list and its files',
    tag: 'Lists',
    request: ListIdRequest,
    pathParams: ['id'],
    resolver: [LeadListResolver, 'deleteList'],
    present: () => ({ status: 200, body: {} }),
    responses: { 200: { description: 'Empty object', shape: ListDeletedShape } },
  },
];
