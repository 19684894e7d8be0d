import { PlanError } from '../errors';
import { Feature, FEATURE_LABEL, FEATURE_PLAN, PLANS } from '../plans/plan-catalog';
import type { Principal } from './caller';

/** Plan features: lists, email verification and the subdomain finder need the Business plan. */
export function requireFeature(principal: Principal, feature: Feature): void {
  if (!PLANS[principal.plan].features.includes(feature)) {
    throw new PlanError(FEATURE_LABEL[feature], FEATURE_PLAN[feature]);
  }
}
