import type { AnyRoute } from './route';
import { ACCOUNT_ROUTES, usageRoutesFor } from './routes/account.routes';
import { ANALYSIS_ROUTES } from './routes/analysis.routes';
import { CATALOGUE_ROUTES } from './routes/catalogue.routes';
import { CHANGES_ROUTES } from './routes/changes.routes';
import { DATASET_ROUTES } from './routes/dataset.routes';
import { EXPOSURE_ROUTES } from './routes/exposure.routes';
import { LISTS_ROUTES } from './routes/lists.routes';
import { LOOKUP_V2_ROUTES } from './routes/lookup-v2.routes';
import { SBOM_ROUTES } from './routes/sbom.routes';
import { MONITORS_ROUTES } from './routes/monitors.routes';
import { SUBDOMAIN_ROUTES } from './routes/subdomain.routes';
import { TRENDS_ROUTES } from './routes/trends.routes';
import { VERIFY_ROUTES } from './routes/verify.routes';

/**
 * The REST facade's route table: every documented path. Features add their routes here; the
 * router, the OpenAPI document and the contract tests all read this one list.
 */
const RESOURCE_ROUTES: readonly AnyRoute[] = [
  ...ACCOUNT_ROUTES,
  ...ANALYSIS_ROUTES,
  ...LOOKUP_V2_ROUTES,
  ...SBOM_ROUTES,
  ...VERIFY_ROUTES,
  ...SUBDOMAIN_ROUTES,
  ...CHANGES_ROUTES,
  ...MONITORS_ROUTES,
  ...CATALOGUE_ROUTES,
  ...TRENDS_ROUTES,
  ...EXPOSURE_ROUTES,
  ...LISTS_ROUTES,
  ...DATASET_ROUTES,
];

/** The resources, then the `/usage` companion of each resource served (and only those). */
export const ROUTE_TABLE: readonly AnyRoute[] = [...RESOURCE_ROUTES, ...usageRoutesFor(RESOURCE_ROUTES)];
