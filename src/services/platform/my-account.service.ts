import type { Family } from '../../plans/plan-catalog';
import { ValidationError } from '../../errors';
import type { CallbackDeliveryEntity } from '../../storage/entities/callback-delivery.entity';
import { AccountService, AccountSummary } from './account.service';
import { CallbackDeliveryPage, CallbackService } from './callback.service';
import type { Caller } from './caller';
import { CreditService, LedgerPage } from './credit.service';
import { MeteringService } from './metering.service';
import { QuotaService, UsageReport } from './quota.service';

/**
 * What a caller may read about their own account. Each read is a metered call like any other
 * (it counts toward the quota and costs 0 credits), so the demo key's ten daily requests are
 * "across all APIs" as the spec says.
 */
export class MyAccountService {
  constructor(
    private readonly accounts: AccountService,
    private readonly credits: CreditService,
    private readonly quota: QuotaService,
    private readonly metering: MeteringService,
    private readonly callbacks: CallbackService,
  ) {}

  account(caller: Caller): Promise<AccountSummary> {
    return this.free(caller, 'account', () => this.accounts.show(caller.principal.accountId));
  }

  balance(caller: Caller): Promise<number> {
    return this.free(caller, 'GET /v2/credits/balance/', () =>
      this.credits.balance(caller.principal.accountId),
    );
  }

  usage(caller: Caller, family: Family): Promise<UsageReport> {
    return this.free(caller, `usage of ${family}`, () => this.quota.usage(caller.principal, family));
  }

  ledger(caller: Caller, limit: number, before?: number): Promise<LedgerPage> {
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
      throw new ValidationError('limit', 'limit must be a whole number between 1 and 500');
    }
    return this.free(caller, 'ledger', () => this.credits.ledger(caller.principal.accountId, limit, before));
  }

  /** The caller's callback delivery log, newest first. */
  callbackDeliveries(caller: Caller, limit: number, before?: string): Promise<CallbackDeliveryPage> {
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      throw new ValidationError('limit', 'limit must be a whole number between 1 and 100');
    }
    return this.free(caller, 'callback deliveries', () =>
      this.callbacks.list(caller.principal.accountId, { limit, before }),
    );
  }

  /** Sends one of the caller's callbacks again now. */
  redeliverCallback(caller: Caller, deliveryId: string): Promise<CallbackDeliveryEntity> {
    return this.free(caller, 'callback redelivery', () =>
      this.callbacks.redeliver(caller.principal.accountId, deliveryId),
    );
  }

  private free<T>(caller: Caller, reason: string, work: () => Promise<T>): Promise<T> {
    return this.metering.run(caller, { minimumCost: 0, cost: () => 0, reason }, work);
  }
}
