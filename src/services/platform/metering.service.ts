import type { Feature, PlanCatalog } from '../../plans/plan-catalog';
import { requireFeature } from './access.service';
import type { Caller } from './caller';
import { CreditService } from './credit.service';
import { UsageMeter } from './usage-meter';

export interface MeteredCall<T> {
  /** The plan feature the call needs, if any (403 otherwise, not counted). */
  feature?: Feature;
  /** Credits the call will at least cost, checked before any work is done. */
  minimumCost: number;
  /** The final cost, computed from the result (e.g. per subdomain returned). */
  cost: (result: T) => number;
  /** Ledger reason, e.g. "GET /analyze/v1/". */
  reason: string;
  /**
   * The work only reads (a stored lookup): the request is counted and charged together, in one
   * settlement after the work, instead of counted before and charged after. A request over its
   * quota is then refused after the read (its answer withheld, nothing charged); an account known
   * to be over its quota is refused before it.
   */
  readOnly?: boolean;
}

/**
 * The rules every metered service call obeys, in order: plan feature, quota (counted even when
 * the work then fails), affordability, the work, then the charge. Because the charge comes only
 * after success, a failed request is never charged and needs no refund. Counting and charging go
 * through the usage meter's group commit.
 */
export class MeteringService {
  constructor(
    private readonly meter: UsageMeter,
    private readonly credits: CreditService,
    private readonly plans: PlanCatalog,
  ) {}

  async run<T>(caller: Caller, call: MeteredCall<T>, work: () => Promise<T>): Promise<T> {
    if (call.feature) requireFeature(caller.principal, call.feature, this.plans);
    if (call.readOnly) return this.runReadOnly(caller, call, work);
    await this.meter.settle({ caller, count: true, charge: 0, reason: call.reason });
    await this.credits.ensureAffordable(caller, call.minimumCost);
    const result = await work();
    const cost = call.cost(result);
    if (cost > 0) await this.meter.settle({ caller, count: false, charge: cost, reason: call.reason });
    return result;
  }

  private async runReadOnly<T>(caller: Caller, call: MeteredCall<T>, work: () => Promise<T>): Promise<T> {
    this.meter.refuseIfExhausted(caller);
    let result: T;
    try {
      result = await work();
    } catch (error) {
      // Failed requests count too; a refusal by the quota (or a revoked key) outranks the failure.
      await this.meter.settle({ caller, count: true, charge: 0, reason: call.reason });
      throw error;
    }
    await this.meter.settle({ caller, count: true, charge: call.cost(result), reason: call.reason });
    return result;
  }
}
