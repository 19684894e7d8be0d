import type { MeteringRepository } from '../../storage/metering.repository';
import type { Family, PlanCatalog } from '../../plans/plan-catalog';
import type { Principal } from './caller';
import { QuotaClock } from './quota-clock';

/** The quota reported for a plan without one: the largest GraphQL Int. */
const UNLIMITED = 2_147_483_647;

/** The spec's usage object. */
export interface UsageReport {
  api: { throttle: { rateLimit: number }; quota: { limit: number; period: 'DAY' | 'MONTH' } };
  plan: { name: string; quota: { remaining: number } };
}

/**
 * Reports request quotas (the counting itself is the usage meter's, src/services/platform/usage-meter.ts,
 * in the same transaction as the charge). A plan without a quota (PLANS_FILE) reports UNLIMITED as
 * its monthly limit.
 */
export class QuotaService {
  constructor(
    private readonly storage: MeteringRepository,
    private readonly plans: PlanCatalog,
    private readonly clock: QuotaClock,
  ) {}

  async usage(principal: Principal, family: Family): Promise<UsageReport> {
    const plan = this.plans.get(principal.plan);
    const quota = this.clock.limitOf(principal, plan) ?? { limit: UNLIMITED, period: 'MONTH' as const };
    const used = await this.storage.countOf(principal.accountId, this.clock.periodKey(quota.period));
    const rate = plan.rateLimits[family];
    return {
      api: {
        throttle: { rateLimit: Math.max(1, Math.round((rate.max * 1000) / rate.windowMs)) },
        quota,
      },
      plan: { name: principal.plan, quota: { remaining: Math.max(0, quota.limit - used) } },
    };
  }
}
