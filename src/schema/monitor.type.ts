import { MonitorShape } from '../services/monitors/monitors.contract';
import { objectTypeOf } from './zod-graphql';

/** A monitor: the same fields as GET /v2/monitors/{id}. */
export const Monitor = objectTypeOf(
  MonitorShape,
  'Monitor',
  "A standing filter over the change log: each analysis's matching changes are called back, one batch per site",
);
