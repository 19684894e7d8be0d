import type { JsonSchema } from '../json-schema';
import { stringParam } from '../params';
import type { RestRoute } from '../route';

const categoryRefSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'slug', 'name', 'priority'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    slug: { type: 'string' },
    name: { type: 'string' },
    priority: { type: 'integer', description: '1 is the most significant (CMS, Ecommerce), 10 the least' },
  },
};

const technologySchema: JsonSchema = {
  type: 'object',
  required: ['slug', 'name', 'icon', 'website', 'cpe', 'categories', 'versioned', 'hostnames'],
  additionalProperties: false,
  properties: {
    slug: { type: 'string' },
    name: { type: 'string' },
    icon: { type: 'string', description: 'Icon file name of the fingerprints (e.g. WordPress.svg)' },
    website: { type: 'string', description: "The technology's website; '' when unknown" },
    cpe: { type: ['string', 'null'], description: 'CPE 2.3 name, null when the fingerprints have none' },
    categories: { type: 'array', items: categoryRefSchema },
    versioned: { type: 'boolean', description: 'Some pattern of the technology can yield a version' },
    hostnames: {
      type: 'integer',
      minimum: 0,
      description: "Sites of this service's index on which the technology was confirmed in the last 90 days",
    },
  },
};

const categorySchema: JsonSchema = {
  type: 'object',
  required: ['id', 'slug', 'name', 'priority', 'technologiesCount', 'groups'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    slug: { type: 'string' },
    name: { type: 'string' },
    priority: { type: 'integer', description: '1 is the most significant, 10 the least' },
    technologiesCount: {
      type: 'integer',
      minimum: 0,
      description: 'Technologies of the loaded fingerprints in it',
    },
    groups: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'slug'],
        additionalProperties: false,
        properties: { name: { type: 'string' }, slug: { type: 'string' } },
      },
    },
  },
};

const TECHNOLOGY_FIELDS =
  'slug name icon website cpe categories { id slug name priority } versioned hostnames';
const CATEGORY_FIELDS = 'id slug name priority technologiesCount groups { name slug }';

const slugParam = (what: string) =>
  stringParam({
    name: 'slug',
    in: 'path',
    required: true,
    description: `The ${what}'s slug`,
    maxLength: 200,
  });

/** The catalogue is served from memory and changes only with the fingerprints and the index counts. */
const cache: RestRoute['cache'] = {
  etag: (services) => services.catalogue.etag(),
  maxAgeSeconds: (services) => services.catalogue.maxAgeSeconds,
};

const common = {
  method: 'GET',
  family: 'public',
  public: true,
  cache,
} as const;

const DESCRIPTION =
  'Served from the fingerprints the service has loaded (FINGERPRINTS_PATH included). Cacheable: every answer ' +
  'carries an ETag; send it back in If-None-Match to get a 304 without a body.';

/** GET /v2/technologies/, /v2/technologies/{slug}/, /v2/categories/, /v2/categories/{slug}/: the public catalogue. */
export const CATALOGUE_ROUTES: RestRoute[] = [
  {
    ...common,
    path: '/v2/technologies',
    operationId: 'listTechnologies',
    summary: 'Every technology the service can detect (no key needed)',
    description: DESCRIPTION,
    tag: 'Catalogue',
    params: [],
    operation: `query Technologies { technologies { ${TECHNOLOGY_FIELDS} } }`,
    variables: () => ({}),
    respond: (data) => ({ status: 200, body: data.technologies }),
    responses: {
      200: {
        description: 'The technologies, in fingerprint order',
        schema: { type: 'array', items: technologySchema },
      },
    },
  },
  {
    ...common,
    path: '/v2/technologies/{slug}',
    operationId: 'getTechnology',
    summary: 'One technology by slug (no key needed)',
    description: DESCRIPTION,
    tag: 'Catalogue',
    params: [slugParam('technology')],
    operation: `query Technology($slug: String!) { technology(slug: $slug) { ${TECHNOLOGY_FIELDS} } }`,
    variables: (values) => ({ slug: values.slug }),
    respond: (data) => ({ status: 200, body: data.technology }),
    responses: {
      200: { description: 'The technology', schema: technologySchema },
      404: { description: 'No technology has this slug', schema: { $ref: '#/components/schemas/Error' } },
    },
  },
  {
    ...common,
    path: '/v2/categories',
    operationId: 'listCategories',
    summary: 'Every technology category (no key needed)',
    description: DESCRIPTION,
    tag: 'Catalogue',
    params: [],
    operation: `query Categories { categories { ${CATEGORY_FIELDS} } }`,
    variables: () => ({}),
    respond: (data) => ({ status: 200, body: data.categories }),
    responses: {
      200: { description: 'The categories, by id', schema: { type: 'array', items: categorySchema } },
    },
  },
  {
    ...common,
    path: '/v2/categories/{slug}',
    operationId: 'getCategory',
    summary: 'One category by slug (no key needed)',
    description: DESCRIPTION,
    tag: 'Catalogue',
    params: [slugParam('category')],
    operation: `query Category($slug: String!) { category(slug: $slug) { ${CATEGORY_FIELDS} } }`,
    variables: (values) => ({ slug: values.slug }),
    respond: (data) => ({ status: 200, body: data.category }),
    responses: {
      200: { description: 'The category', schema: categorySchema },
      404: { description: 'No category has this slug', schema: { $ref: '#/components/schemas/Error' } },
    },
  },
];
