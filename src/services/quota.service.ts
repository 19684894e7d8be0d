import { Database } from '../db/database';
import { UsageCounterEntity } from '../entities';
import { QuotaError } from '../errors';
import { Family, PLANS } from '../plans/plan-catalog';
import type { Caller, Principal } from './caller';

/** The spec's usage object. */
export interface UsageReport {
  api: { throttle: { rateLimit: number }; quota: { limit: number; period: 'DAY' | 'MONTH' } };
  plan: { name: string; quota: { remaining: number } };
}

/**
 * Request quotas per account and period (a month for paid plans, a UTC day for the demo key).
 * Counting is one conditional UPDATE, so concurrent requests can never push past the limit.
 * Every metered request counts, including unsuccessful ones and usage requests (the spec).
 */
export class QuotaService {
  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date(),
    private readonly demoDailyRequests?: number,
  ) {}

  /** Counts one request toward the caller's quota, or throws QuotaError (429) when it is used up. */
  async count(caller: Caller): Promise<void> {
    const { principal } = caller;
    const { limit, period } = this.limitOf(principal);
    const key = this.periodKey(period);
    // The common case is one conditional UPDATE. The row is created only when missing, in its own
    // statement: INSERT IGNORE inside the same transaction takes a shared lock that the UPDATE must
    // then upgrade, and concurrent requests on MariaDB deadlock on exactly that upgrade.
    const increment = () =>
      this.db.transaction(async (m) => {
        const result = await m
          .createQueryBuilder()
          .update(UsageCounterEntity)
          .set({ count: () => 'count + 1' })
          .where('account_id = :id AND period = :key AND count < :limit', {
            id: principal.accountId,
            key,
            limit,
          })
          .execute();
        return Boolean(result.affected);
      });
    let counted = await increment();
    if (!counted) {
      await this.db.transaction((m) =>
        m
          .createQueryBuilder()
          .insert()
          .into(UsageCounterEntity)
          .values({ accountId: principal.accountId, period: key, count: 0 })
          .orIgnore()
          .execute(),
      );
      counted = await increment();
    }
    if (!counted) {
      const what = principal.isDemo
        ? `The demo key allows ${limit} requests per day`
        : `The ${principal.plan} plan quota of ${limit} requests per ${period.toLowerCase()} is used up`;
      throw new QuotaError(`Usage plan quota exceeded: ${what}`, this.secondsUntilReset(period));
    }
  }

  async usage(principal: Principal, family: Family): Promise<UsageReport> {
    const { limit, period } = this.limitOf(principal);
    const row = await this.db.manager.findOne(UsageCounterEntity, {
      where: { accountId: principal.accountId, period: this.periodKey(period) },
    });
    const rate = PLANS[principal.plan].rateLimits[family];
    return {
      api: {
        throttle: { rateLimit: Math.max(1, Math.round((rate.max * 1000) / rate.windowMs)) },
        quota: { limit, period },
      },
      plan: { name: principal.plan, quota: { remaining: Math.max(0, limit - (row?.count ?? 0)) } },
    };
  }

  private limitOf(principal: Principal): { limit: number; period: 'DAY' | 'MONTH' } {
    const quota = PLANS[principal.plan].quota;
    if (principal.isDemo && this.demoDailyRequests) return { limit: this.demoDailyRequests, period: 'DAY' };
    return quota;
  }

  private periodKey(period: 'DAY' | 'MONTH'): string {
    const iso = this.now().toISOString();
    return period === 'DAY' ? `D${iso.slice(0, 10)}` : `M${iso.slice(0, 7)}`;
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
