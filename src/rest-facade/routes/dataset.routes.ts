import { MAX_SUBSET, MAX_TECHNOLOGIES } from '../../services/lists/lead-list-request';
import type { JsonSchema } from '../json-schema';
import { booleanParam, integerParam, stringArrayParam, stringParam } from '../params';
import type { RestRoute } from '../route';

/**
 * The Dataset family: POST /dataset/v1/ (quote) and POST /dataset/v1/{orderRef} (confirm). Both
 * answer 202; the quote and the completed order (with its signed ZIP link) go to the callback.
 */

const callbackParam = (name: string, description: string) =>
  stringParam({ name, in: 'body', maxLength: 2048, description });

export const DATASET_ORDER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['orderRef', 'status', 'description', 'amount', 'currency', 'records', 'query', 'dataset'],
  properties: {
    orderRef: { type: 'string' },
    status: { type: 'string', enum: ['new', 'complete'] },
    description: { type: 'string' },
    amount: { type: 'number' },
    currency: { type: 'string' },
    records: {
      type: 'object',
      properties: {
        counts: { type: 'object', additionalProperties: { type: 'integer' } },
        subset: { type: ['integer', 'null'] },
      },
    },
    query: {
      type: 'object',
      properties: {
        technologies: { type: 'array', items: { type: 'string' } },
        languages: { type: 'array', items: { type: 'string' } },
        tlds: { type: 'array', items: { type: 'string' } },
        matchLangTld: { type: 'boolean' },
      },
    },
    dataset: { type: 'object', properties: { url: { type: ['string', 'null'] } } },
  },
};

export const DATASET_ROUTES: RestRoute[] = [
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
    family: 'dataset',
    params: [
      {
        ...stringArrayParam('technologies', `Technology names, at most ${MAX_TECHNOLOGIES}`),
        required: true,
      },
      stringArrayParam('languages', 'ISO 639-1 language codes (xx or xx-yy)'),
      stringArrayParam('tlds', 'Top-level domains, with or without the leading dot'),
      booleanParam({
        name: 'matchLanguageTld',
        in: 'body',
        default: false,
        description: 'true: a website must match a language and a TLD (fewer results); false: either',
      }),
      integerParam({
        name: 'subset',
        in: 'body',
        min: 1,
        max: MAX_SUBSET,
        description: 'Only the n most trafficked websites per technology',
      }),
      callbackParam('callback_url', 'Required: receives the quote, then the completed order'),
      callbackParam('callbackUrl', 'The spelling of the published example, accepted for callback_url'),
    ],
    operation: `mutation DatasetQuote($input: DatasetQuoteInput!) { datasetQuote(input: $input) { orderRef } }`,
    variables: (values) => {
      const { callback_url: snake, callbackUrl, ...rest } = values;
      return { input: { ...rest, callbackUrl: snake ?? callbackUrl ?? null } };
    },
    respond: (data) => ({ status: 202, body: data.datasetQuote }),
    responses: {
      202: {
        description: 'Accepted: the quote follows by callback',
        schema: { type: 'object', required: ['orderRef'], properties: { orderRef: { type: 'string' } } },
      },
    },
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
    family: 'dataset',
    params: [
      stringParam({
        name: 'orderRef',
        in: 'path',
        required: true,
        maxLength: 40,
        description: 'The orderRef of the quote',
      }),
    ],
    operation: `mutation DatasetConfirm($orderRef: String!) { datasetConfirm(orderRef: $orderRef) { orderStatus } }`,
    variables: (values) => ({ orderRef: values.orderRef }),
    respond: (data) => ({ status: 202, body: data.datasetConfirm }),
    responses: {
      202: {
        description: 'Paid: the file follows by callback',
        schema: { type: 'object', required: ['orderStatus'], properties: { orderStatus: { const: 'paid' } } },
      },
      402: {
        description: 'Payment declined; the order stays new',
        schema: { $ref: '#/components/schemas/Error' },
      },
      404: {
        description: "No such order (or another account's)",
        schema: { $ref: '#/components/schemas/Error' },
      },
      409: { description: 'The quote is not ready yet', schema: { $ref: '#/components/schemas/Error' } },
    },
  },
];
