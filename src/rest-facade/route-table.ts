import type { RestRoute } from './route';
import { ACCOUNT_ROUTES } from './routes/account.routes';

/**
 * The REST facade's route table: every documented path. Features add their routes here; the
 * router, the OpenAPI document and the contract tests all read this one list.
 */
export const ROUTE_TABLE: readonly RestRoute[] = [...ACCOUNT_ROUTES];
