import { ENRICHMENT_SETS } from '../../enrichment';
import { ValidationError } from '../../errors';
import { LIST_STATUSES } from '../../storage/entities/lead-list.entity';
import {
  LIST_FORMATS,
  LIST_ID_PATTERN,
  MATCH_TECHNOLOGIES,
  MAX_SUBSET,
  MAX_TECHNOLOGIES,
  SUBDOMAIN_MODES,
  VERSION_OPERATORS,
} from '../../services/lists/lead-list-request';
import type { ListSummaryView, ListView } from '../../services/lists/lead-list.service';
import type { JsonSchema } from '../json-schema';
import { booleanParam, enumParam, integerParam, stringArrayParam, stringParam } from '../params';
import type { ParamSpec, RestRoute } from '../route';

/**
 * The Lists family (Business plan): POST/GET /v2/lists, GET/POST/DELETE /v2/lists/{id}. Bodies are
 * JSON with the published field names; each field is type-checked here (400 naming it) and fully
 * validated by LeadListService. Downloads are served by src/http/list-downloads.ts.
 */

const technologiesParam: ParamSpec<{ slug: string; version: string | null; operator: string | null }[]> = {
  name: 'technologies',
  in: 'body',
  required: false,
  description: `At most ${MAX_TECHNOLOGIES} technologies: {slug, version?, operator?: ${VERSION_OPERATORS.join(' | ')}}`,
  schema: {
    type: 'array',
    maxItems: MAX_TECHNOLOGIES,
    items: {
      type: 'object',
      required: ['slug'],
      properties: {
        slug: { type: 'string' },
        version: { type: 'string' },
        operator: { type: 'string', enum: [...VERSION_OPERATORS] },
      },
    },
  },
  parse(raw) {
    if (!Array.isArray(raw)) throw new ValidationError('technologies', 'technologies must be an array');
    if (raw.length > MAX_TECHNOLOGIES)
      throw new ValidationError('technologies', `technologies must hold at most ${MAX_TECHNOLOGIES} items`);
    return raw.map((item: unknown, i) => {
      const field = `technologies[${i}]`;
      if (typeof item !== 'object' || item === null || Array.isArray(item))
        throw new ValidationError('technologies', `${field} must be an object with a slug`);
      const { slug, version, operator } = item as Record<string, unknown>;
      if (typeof slug !== 'string')
        throw new ValidationError('technologies', `${field}.slug must be a string`);
      if (
        version !== undefined &&
        version !== null &&
        typeof version !== 'string' &&
        typeof version !== 'number'
      )
        throw new ValidationError('technologies', `${field}.version must be a string`);
      if (operator !== undefined && operator !== null && typeof operator !== 'string')
        throw new ValidationError('technologies', `${field}.operator must be one of =, >=, <=`);
      return {
        slug,
        version: version === undefined || version === null ? null : String(version),
        operator: operator ?? null,
      };
    });
  },
};

const idParam = stringParam({
  name: 'id',
  in: 'path',
  required: true,
  maxLength: 40,
  description: 'List id (lst_…)',
});

const listIdBody = (name: string, description: string) =>
  stringParam({
    name,
    in: 'body',
    maxLength: 40,
    pattern: LIST_ID_PATTERN,
    patternText: 'must be a list id (lst_…)',
    description,
  });

const CREATE_PARAMS: ParamSpec[] = [
  technologiesParam,
  stringArrayParam(
    'categories',
    'Category slugs; each adds its top 100 technologies by websites in the index',
  ),
  stringArrayParam('keywords', "Keywords (a-z0-9); prefix 'not ' to exclude"),
  stringArrayParam('languages', 'ISO 639-1 codes, or with region (xx-yy); xx matches xx-yy too'),
  stringArrayParam('countries', 'Two-letter country codes'),
  stringArrayParam('industries', 'Industries (as the enrichment names them, case-insensitive)'),
  stringArrayParam(
    'companySizes',
    'Size labels (1-10 … 10001+) or the upper bound of a range (5000 = 1001-5000)',
  ),
  stringArrayParam('tlds', 'Top-level domains, with or without the leading dot'),
  booleanParam({
    name: 'matchCountryLanguage',
    in: 'body',
    default: true,
    description: 'true: both country and language must match; false: either',
  }),
  enumParam({
    name: 'matchTechnologies',
    in: 'body',
    values: MATCH_TECHNOLOGIES,
    default: 'or',
    description: 'or: any; and: all; not: the first and none of the others',
  }),
  booleanParam({
    name: 'rootPath',
    in: 'body',
    default: false,
    description: 'Only sites with the technology on the home page',
  }),
  integerParam({
    name: 'subset',
    in: 'body',
    min: 1,
    max: MAX_SUBSET,
    description: 'Websites per technology at most',
  }),
  integerParam({
    name: 'subsetSlice',
    in: 'body',
    min: 0,
    max: 4,
    default: 0,
    description: 'Traffic quintile the subset starts at: 0 highest … 4 lowest',
  }),
  integerParam({
    name: 'minAge',
    in: 'body',
    min: 0,
    max: 11,
    default: 0,
    description: 'Months: confirmed at least this long ago',
  }),
  integerParam({
    name: 'maxAge',
    in: 'body',
    min: 1,
    max: 12,
    default: 3,
    description: 'Months: confirmed at most this long ago',
  }),
  integerParam({
    name: 'fromDate',
    in: 'body',
    min: 0,
    max: 2_147_483_647,
    description: 'UNIX seconds: only sites first seen after it',
  }),
  stringArrayParam(
    'requiredSets',
    `Field sets a site must hold a value in: ${ENRICHMENT_SETS.join(', ')}, all`,
  ),
  enumParam({
    name: 'subdomains',
    in: 'body',
    values: SUBDOMAIN_MODES,
    default: 'include',
    description: 'include, exclude or merge (one result per domain)',
  }),
  booleanParam({
    name: 'excludeNoTraffic',
    in: 'body',
    default: false,
    description: 'Leave out sites without traffic',
  }),
  booleanParam({
    name: 'excludeMultilingual',
    in: 'body',
    default: false,
    description: 'Leave out sites in several languages',
  }),
  listIdBody(
    'excludeListId',
    'Leave out the websites of this list and of the lists it excluded (≤ 10 lists, ≤ 500,000 websites)',
  ),
  listIdBody('baseListId', 'Only websites also in this list'),
  stringArrayParam('sets', `Field sets in the files: ${ENRICHMENT_SETS.join(', ')}, all`),
  stringParam({
    name: 'callbackUrl',
    in: 'body',
    maxLength: 2048,
    description: 'Notified (signed POST) when the calculation ends',
  }),
  enumParam({
    name: 'format',
    in: 'body',
    values: LIST_FORMATS,
    default: 'csv',
    description: 'File format: csv or json',
  }),
];

const technologySchema: JsonSchema = {
  type: 'object',
  required: ['slug', 'name', 'categories', 'operator', 'version'],
  properties: {
    slug: { type: 'string' },
    name: { type: 'string' },
    categories: {
      type: 'array',
      items: { type: 'object', properties: { slug: { type: 'string' }, name: { type: 'string' } } },
    },
    operator: { type: 'string', enum: [...VERSION_OPERATORS] },
    version: { type: ['string', 'null'] },
  },
};

const countsSchema: JsonSchema = { type: 'object', additionalProperties: { type: 'integer' } };
const stringArray: JsonSchema = { type: 'array', items: { type: 'string' } };

const summarySchema: JsonSchema = {
  type: 'object',
  required: ['id', 'createdAt', 'status', 'totalCredits', 'technologies', 'keywords', 'rows'],
  properties: {
    id: { type: 'string' },
    createdAt: { type: 'integer' },
    status: { type: 'string', enum: [...LIST_STATUSES] },
    totalCredits: { type: 'integer' },
    technologies: { type: 'array', items: technologySchema },
    keywords: stringArray,
    rows: { type: 'integer' },
  },
};

const fullSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'createdAt',
    'status',
    'technologies',
    'totalCredits',
    'url',
    'sampleUrl',
    'rows',
    'setRows',
  ],
  properties: {
    ...summarySchema.properties,
    languages: stringArray,
    countries: stringArray,
    industries: stringArray,
    companySizes: stringArray,
    tlds: stringArray,
    matchCountryLanguage: { type: 'boolean' },
    matchTechnologies: { type: 'string' },
    rootPath: { type: 'boolean' },
    subset: { type: ['integer', 'null'] },
    subsetSlice: { type: 'integer' },
    subdomains: { type: 'string' },
    minAge: { type: 'integer' },
    maxAge: { type: 'integer' },
    fromDate: { type: ['integer', 'null'] },
    requiredSets: stringArray,
    excludeNoTraffic: { type: 'boolean' },
    excludeMultilingual: { type: 'boolean' },
    excludeListId: { type: ['string', 'null'] },
    sets: stringArray,
    callbackUrl: { type: ['string', 'null'] },
    format: { type: 'string' },
    url: { type: ['string', 'null'] },
    sampleUrl: { type: ['string', 'null'] },
    rows: countsSchema,
    setRows: countsSchema,
    websites: { type: 'integer' },
    baseListId: { type: ['string', 'null'] },
    baseList: { anyOf: [summarySchema, { type: 'null' }] },
    error: { type: ['string', 'null'] },
  },
};

const ERROR = { $ref: '#/components/schemas/Error' };
const notFound = { description: "No such list (or another account's)", schema: ERROR };

const TECH = 'technologies { slug name categories { slug name } operator version }';
const SUMMARY = `id createdAt status totalCredits ${TECH} keywords rows`;
const FULL =
  `id createdAt status ${TECH} keywords languages countries industries companySizes tlds matchCountryLanguage ` +
  'matchTechnologies rootPath subset subsetSlice subdomains minAge maxAge fromDate requiredSets excludeNoTraffic ' +
  'excludeMultilingual excludeListId sets callbackUrl format totalCredits url sampleUrl rows { slug rows } ' +
  `setRows { set rows } websites baseListId baseList { ${SUMMARY} } error`;

/** GraphQL's count lists become the published objects (slug → rows, set → rows). */
export function toRestList(list: ListView): Record<string, unknown> {
  return {
    ...list,
    rows: Object.fromEntries(list.rows.map((r) => [r.slug, r.rows])),
    setRows: Object.fromEntries(list.setRows.map((r) => [r.set, r.rows])),
  };
}

export const LISTS_ROUTES: RestRoute[] = [
  {
    method: 'GET',
    path: '/v2/lists',
    operationId: 'getLists',
    summary: 'The lead lists of the account, summary form (Business plan)',
    tag: 'Lists',
    family: 'lists',
    params: [],
    operation: `query Lists { lists { ${SUMMARY} } }`,
    variables: () => ({}),
    respond: (data) => ({ status: 200, body: data.lists as ListSummaryView[] }),
    responses: {
      200: { description: 'Summary records, newest first', schema: { type: 'array', items: summarySchema } },
    },
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
    family: 'lists-create',
    params: CREATE_PARAMS,
    operation: `mutation CreateList($input: ListCreateInput!) { createList(input: $input) { id status } }`,
    variables: (values) => ({ input: values }),
    respond: (data) => ({ status: 200, body: data.createList }),
    responses: {
      200: {
        description: 'The new list, Calculating',
        schema: {
          type: 'object',
          required: ['id', 'status'],
          properties: { id: { type: 'string' }, status: { const: 'Calculating' } },
        },
      },
    },
  },
  {
    method: 'GET',
    path: '/v2/lists/{id}',
    operationId: 'getList',
    summary: 'One lead list, full form',
    tag: 'Lists',
    family: 'lists',
    params: [idParam],
    operation: `query List($id: String!) { list(id: $id) { ${FULL} } }`,
    variables: (values) => ({ id: values.id }),
    respond: (data) => ({ status: 200, body: toRestList(data.list as ListView) }),
    responses: { 200: { description: 'The full list record', schema: fullSchema }, 404: notFound },
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
    family: 'lists-finalize',
    params: [
      idParam,
      integerParam({
        name: 'spendCredits',
        in: 'body',
        required: true,
        min: 0,
        max: 2_147_483_647,
        description: "Must equal the list's totalCredits",
      }),
    ],
    operation: `mutation FinalizeList($id: String!, $spendCredits: Int!) {
      finalizeList(id: $id, spendCredits: $spendCredits) { id status url }
    }`,
    variables: (values) => ({ id: values.id, spendCredits: values.spendCredits }),
    respond: (data) => ({ status: 200, body: data.finalizeList }),
    responses: {
      200: {
        description: 'The list, Complete, with the signed link to its ZIP file',
        schema: {
          type: 'object',
          required: ['id', 'status', 'url'],
          properties: { id: { type: 'string' }, status: { const: 'Complete' }, url: { type: 'string' } },
        },
      },
      404: notFound,
      409: {
        description: 'The list is not Ready (Calculating, Failed, Insufficient or already Complete)',
        schema: ERROR,
      },
    },
  },
  {
    method: 'DELETE',
    path: '/v2/lists/{id}',
    operationId: 'deleteList',
    summary: 'Delete a list and its files',
    tag: 'Lists',
    family: 'lists',
    params: [idParam],
    operation: `mutation DeleteList($id: String!) { deleteList(id: $id) }`,
    variables: (values) => ({ id: values.id }),
    respond: () => ({ status: 200, body: {} }),
    responses: {
      200: { description: 'Empty object', schema: { type: 'object', additionalProperties: false } },
    },
  },
];
