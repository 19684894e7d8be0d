import { AccountEntity } from './account.entity';
import { ApiKeyEntity } from './api-key.entity';
import { CreditLedgerEntryEntity } from './credit-ledger-entry.entity';
import { UsageCounterEntity } from './usage-counter.entity';
import { CallbackDeliveryEntity } from './callback-delivery.entity';
import { JobEntity } from './job.entity';

/** Every entity of the service; ormconfig.ts registers exactly these. Add new entities here. */
export const ENTITIES = [
  AccountEntity,
  ApiKeyEntity,
  CreditLedgerEntryEntity,
  UsageCounterEntity,
  JobEntity,
  CallbackDeliveryEntity,
];

export { AccountEntity, ApiKeyEntity, CreditLedgerEntryEntity, UsageCounterEntity };
