import type { Feature } from '../plans/plan-catalog';
import { requireFeature } from './access.service';
import type { Caller } from './caller';
import { CreditService } from './credit.service';
import { QuotaService } from './quota.service';

export interface MeteredCall<T> {
  /** The plan feature the call needs, if any (403 otherwise, not counted). */
  feature?: Feature;
  /** Credits the call will at least cost, checked before any work is done. */
  minimumCost: number;
  /** The final cost, computed from the result (e.g. per subdomain returned). */
  cost: (result: T) => number;
  /** Ledger reason, e.g. "GET /analyze/v1/". */
  reason: string;
}

/**
 * The rules every metered service call obeys, in order: plan feature, quota (counted even when
 * the work then fails), affordability, the work, then the charge. Because the charge comes only
 * after success, a failed request is never charged and needs no refund.
 */
export class MeteringService {
  constructor(
    private readonly quota: QuotaService,
    private readonly credits: CreditService,
  ) {}

  async run<T>(caller: Caller, call: MeteredCall<T>, work: () => Promise<T>): Promise<T> {
    if (call.feature) requireFeature(caller.principal, call.feature);
    await this.quota.count(caller);
    await this.credits.ensureAffordable(caller, call.minimumCost);
    const result = await work();
    await this.credits.charge(caller, call.cost(result), call.reason);
    return result;
  }
}
