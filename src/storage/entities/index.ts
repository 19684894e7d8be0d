import { AccountEntity } from './account.entity';
import { ApiKeyEntity } from './api-key.entity';
import { CreditLedgerEntryEntity } from './credit-ledger-entry.entity';
import { UsageCounterEntity } from './usage-counter.entity';
import { CallbackDeliveryEntity } from './callback-delivery.entity';
import { JobEntity } from './job.entity';
import { ObservedHostnameEntity } from './observed-hostname.entity';
import { SiteMonthTechnologyEntity } from './site-month-technology.entity';
import { SiteMonthEntity } from './site-month.entity';
import { SiteTechnologyEntity } from './site-technology.entity';
import { SiteEnrichmentEntity } from './site-enrichment.entity';
import { SiteKeywordEntity } from './site-keyword.entity';
import { SiteLanguageEntity } from './site-language.entity';
import { SiteEntity } from './site.entity';
import { DomainRankEntity } from './domain-rank.entity';
import { LeadListEntity, LeadListSiteEntity } from './lead-list.entity';
import { DatasetChargeEntity, DatasetOrderEntity } from './dataset-order.entity';
import { PageValidatorEntity } from './page-validator.entity';
import { KeyRevocationEntity } from './key-revocation.entity';
import { PageSampleEntity } from './page-sample.entity';
import { SiteTechnologyVersionEntity } from './site-technology-version.entity';
import { SiteTechnologyLiveVersionEntity } from './site-technology-live-version.entity';
import { TechnologyChangeEntity } from './technology-change.entity';
import { MonitorDomainEntity, MonitorEntity } from './monitor.entity';
import {
  FingerprintActivationEntity,
  FingerprintPackEntity,
  FingerprintSetEntity,
} from './fingerprint-pack.entity';

/** Every entity of the service; ormconfig.ts registers exactly these. Add new entities here. */
export const ENTITIES = [
  AccountEntity,
  ApiKeyEntity,
  CreditLedgerEntryEntity,
  UsageCounterEntity,
  JobEntity,
  CallbackDeliveryEntity,
  SiteEntity,
  SiteTechnologyEntity,
  SiteMonthEntity,
  SiteMonthTechnologyEntity,
  ObservedHostnameEntity,
  SiteEnrichmentEntity,
  SiteLanguageEntity,
  DomainRankEntity,
  SiteKeywordEntity,
  LeadListEntity,
  LeadListSiteEntity,
  DatasetOrderEntity,
  DatasetChargeEntity,
  PageValidatorEntity,
  KeyRevocationEntity,
  PageSampleEntity,
  FingerprintPackEntity,
  FingerprintSetEntity,
  FingerprintActivationEntity,
  SiteTechnologyVersionEntity,
  SiteTechnologyLiveVersionEntity,
  TechnologyChangeEntity,
  MonitorEntity,
  MonitorDomainEntity,
];

export { AccountEntity, ApiKeyEntity, CreditLedgerEntryEntity, UsageCounterEntity };
export {
  SiteEntity,
  SiteTechnologyEntity,
  SiteMonthEntity,
  SiteMonthTechnologyEntity,
  ObservedHostnameEntity,
  SiteEnrichmentEntity,
  SiteLanguageEntity,
  SiteKeywordEntity,
  DomainRankEntity,
};
export { LeadListEntity, LeadListSiteEntity };
export { DatasetChargeEntity, DatasetOrderEntity };
export { PageValidatorEntity };
export { PageSampleEntity };
export { KeyRevocationEntity };
export { FingerprintActivationEntity, FingerprintPackEntity, FingerprintSetEntity };
export { SiteTechnologyLiveVersionEntity, SiteTechnologyVersionEntity, TechnologyChangeEntity };
export { MonitorDomainEntity, MonitorEntity };
export type { TechnologyChangeKind } from './technology-change.entity';
