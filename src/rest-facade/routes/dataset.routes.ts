import { DatasetResolver } from '../../resolvers/dataset.resolver';

import {
  DatasetConfirmedShape,
  DatasetQuotedShape,
  DatasetQuoteRequest,
  OrderRefRequest,
} from '../../services/datasets/datasets.contract';
import { project } from '../../services/platform/published-shape';
import type { AnyRoute } from '../route';

/**
 * The Dataset family: POST /dataset/v1/ (quote) and POST /dataset/v1/{orderRef} (confirm). Both
 * answer 202; the quote and the completed order (with its signed ZIP link) go to the callback.
 */
export const DATASET_ROUTES: AnyRoute[] = [
  {
    method: 'POST',
    path: '/dataset/v1',
    operationId: 'quoteDataset',
    summary: 'Quote a dataset of websites by technology (asynchronous)',
    description:
      'Answers 202 {orderRef}; the quote (a dataset order with status new, amount = records × ' +
      'DATASET_PRICE_PER_RECORD, dataset.url null) is POSTed to callback_url (callbackUrl is accepted too). ' +
      'Schema of the callback body: DatasetOrder.',
    tag: 'Dataset',
    request: DatasetQuoteRequest,
    resolver: [DatasetResolver, 'datasetQuote'],
    present: (quoted) => ({ status: 202, body: project(DatasetQuotedShape, quoted) }),
    responses: { 202: { description: 'Accepted: the quote follows by callback', shape: DatasetQuotedShape } },
  },
  {
    method: 'POST',
    path: '/dataset/v1/{orderRef}',
    operationId: 'confirmDataset',
    summary: 'Confirm (buy) a quoted dataset: the quoted amount is charged',
    description:
      'No body. 202 {orderStatus: paid}; the completed order, with its signed and expiring ZIP link, is ' +
      'POSTed to the callback within minutes. Confirming again answers the same and charges nothing more. ' +
      '402 when the payment is declined (the order stays new); 409 while the quote is being computed.',
    tag: 'Dataset',
    request: OrderRefRequest,
    pathParams: ['orderRef'],
    resolver: [DatasetResolver, 'datasetConfirm'],
    present: (confirmed) => ({ status: 202, body: project(DatasetConfirmedShape, confirmed) }),
    responses: {
      202: { description: 'Paid: the file follows by callback', shape: DatasetConfirmedShape },
      402: { description: 'Payment declined; the order stays new', shape: 'error' },
      404: { description: "No such order (or another account's)", shape: 'error' },
      409: { description: 'The quote is not ready yet', shape: 'error' },
    },
  },
];
