import { QuotaError } from '../../errors';
import type { PlanDefinition } from '../../plans/plan-catalog';
import type { Principal } from './caller';

export interface QuotaLimit {
  limit: number;
  period: 'DAY' | 'MONTH';
}

/**
 * Quota periods: a calendar month (UTC) for paid plans, a UTC day for the demo key. Counters are
 * keyed by period ("M2026-11", "D2026-11-23"), so a new period starts from zero by itself.
 */
export class QuotaClock {
  constructor(
    private readonly now: () => Date = () => new Date(),
    /** DEMO_DAILY_REQUESTS: the demo key's daily count. */
    private readonly demoDailyRequests?: number,
  ) {}

  /** The caller's quota, or null when its plan has none. */
  limitOf(principal: Principal, plan: PlanDefinition): QuotaLimit | null {
    if (principal.isDemo && this.demoDailyRequests) return { limit: this.demoDailyRequests, period: 'DAY' };
    return plan.quota;
  }

  periodKey(period: 'DAY' | 'MONTH'): string {
    const iso = this.now().toISOString();
    return period === 'DAY' ? `D${iso.slice(0, 10)}` : `M${iso.slice(0, 7)}`;
  }

  quotaError(principal: Principal, { limit, period }: QuotaLimit): QuotaError {
    const what = principal.isDemo
      ? `The demo key allows ${limit} requests per day`
      : `The ${principal.plan} plan quota of ${limit} requests per ${period.toLowerCase()} is used up`;
    return new QuotaError(`Usage plan quota exceeded: ${what}`, this.secondsUntilReset(period));
  }

  private secondsUntilReset(period: 'DAY' | 'MONTH'): number {
    const now = this.now();
    const next =
      period === 'DAY'
        ? Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)
        : Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
  }
}
