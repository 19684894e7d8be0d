import { z } from 'zod';
import { ExposureResolver } from '../../resolvers/exposure.resolver';
import { project } from '../../services/platform/published-shape';
import {
  ExposedSitesPageShape,
  ExposedSitesRequest,
  ExposureItemShape,
  ExposureRequest,
  type ExposedSitesPage,
  type ExposureItem,
} from '../../services/vulns/exposure.contract';
import type { AnyRoute } from '../route';

/** GET /v2/exposure/ and /v2/exposure/sites/: an extension (issue 33 §3), see docs/api/exposure.md. */
export const EXPOSURE_ROUTES: AnyRoute[] = [
  {
    method: 'GET',
    path: '/v2/exposure',
    operationId: 'getExposure',
    summary:
      'What sites of the index are exposed to: their technologies with known vulnerabilities (up to ten URLs)',
    description:
      'Each URL is answered from the index (1 credit per URL found; one not in the index gives {url, errors} and ' +
      'costs nothing): the live technologies that imported vulnerability records affect, each vulnerability ' +
      '`certain` (the detected version is in an affected range) or `possible` (no version was detected).',
    tag: 'Exposure',
    request: ExposureRequest,
    resolver: [ExposureResolver, 'exposure'],
    present: (items: ExposureItem[]) => ({
      status: 200,
      body: items.map((item) => project(ExposureItemShape, item)),
    }),
    responses: { 200: { description: 'One object per URL', shape: z.array(ExposureItemShape) } },
  },
  {
    method: 'GET',
    path: '/v2/exposure/sites',
    operationId: 'listExposedSites',
    summary: 'The indexed sites running a version a vulnerability affects (1 credit per 10 sites returned)',
    description:
      'The sites whose live technology runs a version inside the ranges of the records the id names (the record ' +
      'itself and those aliasing it), in index order, filtered by country and traffic rank. Sites without a ' +
      'detected version are not listed (they are only possibly affected). Paging: pass `moreAfter` as `after`.',
    tag: 'Exposure',
    request: ExposedSitesRequest,
    resolver: [ExposureResolver, 'exposedSites'],
    present: (page: ExposedSitesPage) => ({ status: 200, body: project(ExposedSitesPageShape, page) }),
    responses: {
      200: { description: 'One page of sites, and the vulnerability', shape: ExposedSitesPageShape },
      404: { description: 'No imported record has this id or alias', shape: 'error' },
    },
  },
];
