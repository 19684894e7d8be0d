import { z } from 'zod';
import { CatalogueResolver } from '../../resolvers/catalogue.resolver';
import {
  CatalogueCategoryShape,
  CatalogueTechnologyShape,
  CategoryRequest,
  TechnologyRequest,
} from '../../services/catalogue/catalogue.contract';
import { project } from '../../services/platform/published-shape';
import type { AnyRoute, RestRoute } from '../route';

/** The catalogue is served from memory and changes only with the fingerprints and the index counts. */
const cache: RestRoute['cache'] = {
  etag: (services) => services.catalogue.etag(),
  maxAgeSeconds: (services) => services.catalogue.maxAgeSeconds,
};

const DESCRIPTION =
  'Served from the fingerprints the service has loaded (FINGERPRINTS_PATH included). Cacheable: every answer ' +
  'carries an ETag; send it back in If-None-Match to get a 304 without a body.';

const common = { method: 'GET', tag: 'Catalogue', description: DESCRIPTION, cache } as const;
const Technologies = z.array(CatalogueTechnologyShape);
const Categories = z.array(CatalogueCategoryShape);

/** GET /v2/technologies/, /v2/technologies/{slug}/, /v2/categories/, /v2/categories/{slug}/: the public catalogue. */
export const CATALOGUE_ROUTES: AnyRoute[] = [
  {
    ...common,
    path: '/v2/technologies',
    operationId: 'listTechnologies',
    summary: 'Every technology the service can detect (no key needed)',
    resolver: [CatalogueResolver, 'technologies'],
    present: (technologies) => ({ status: 200, body: project(Technologies, technologies) }),
    responses: { 200: { description: 'The technologies, in fingerprint order', shape: Technologies } },
  },
  {
    ...common,
    path: '/v2/technologies/{slug}',
    operationId: 'getTechnology',
    summary: 'One technology by slug (no key needed)',
    request: TechnologyRequest,
    pathParams: ['slug'],
    resolver: [CatalogueResolver, 'technology'],
    present: (technology) => ({ status: 200, body: project(CatalogueTechnologyShape, technology) }),
    responses: {
      200: { description: 'The technology', shape: CatalogueTechnologyShape },
      404: { description: 'No technology has this slug', shape: 'error' },
    },
  },
  {
    ...common,
    path: '/v2/categories',
    operationId: 'listCategories',
    summary: 'Every technology category (no key needed)',
    resolver: [CatalogueResolver, 'categories'],
    present: (categories) => ({ status: 200, body: project(Categories, categories) }),
    responses: { 200: { description: 'The categories, by id', shape: Categories } },
  },
  {
    ...common,
    path: '/v2/categories/{slug}',
    operationId: 'getCategory',
    summary: 'One category by slug (no key needed)',
    request: CategoryRequest,
    pathParams: ['slug'],
    resolver: [CatalogueResolver, 'category'],
    present: (category) => ({ status: 200, body: project(CatalogueCategoryShape, category) }),
    responses: {
      200: { description: 'The category', shape: CatalogueCategoryShape },
      404: { description: 'No category has this slug', shape: 'error' },
    },
  },
];
