import { PlanError } from '../../errors';
import { BUILT_IN_PLANS, Feature, FEATURE_LABEL, FEATURE_PLAN, PlanCatalog } from '../../plans/plan-catalog';
import type { Principal } from './caller';

/** Plan features: lists, email verification and the subdomain finder need the Business plan (or one of PLANS_FILE that has them). */
export function requireFeature(
  principal: Principal,
  feature: Feature,
  plans: PlanCatalog = BUILT_IN_PLANS,
): void {
  if (!plans.get(principal.plan).features.includes(feature)) {
    throw new PlanError(FEATURE_LABEL[feature], FEATURE_PLAN[feature]);
  }
}
