import { PlatformAccounts1763830000000 } from './1763830000000-platform-accounts';
import { JobsAndCallbacks1763840000000 } from './1763840000000-jobs-and-callbacks';
import { SiteIndex1763850000000 } from './1763850000000-site-index';
import { EnrichmentPages1763940000000 } from './1763940000000-enrichment-pages';
import { DomainRanks1763941000000 } from './1763941000000-domain-ranks';
import { LedgerIdempotencyKey1763903000000 } from './1763903000000-ledger-idempotency-key';
import { SealedSigningSecrets1763901000000 } from './1763901000000-sealed-signing-secrets';
import { RetentionIndexes1763901000001 } from './1763901000001-retention-indexes';
import { SiteEnrichmentStorage1763920000000 } from './1763920000000-site-enrichment-storage';
import { LeadLists1763950000000 } from './1763950000000-lead-lists';
import { DatasetOrders1764000000000 } from './1764000000000-dataset-orders';
import { LeadListMerge1764100000000 } from './1764100000000-lead-list-merge';
import { PageValidators1764200000000 } from './1764200000000-page-validators';
import { KeyRevocations1764300000000 } from './1764300000000-key-revocations';
import { SiteScheme1764400000000 } from './1764400000000-site-scheme';
import { DownloadOrigins1764410000000 } from './1764410000000-download-origins';
import { FingerprintPacks1764500000000 } from './1764500000000-fingerprint-packs';
import { FingerprintProvenance1764510000000 } from './1764510000000-fingerprint-provenance';
import { HostBackoffs1764600000000 } from './1764600000000-host-backoffs';
import { JobClaimByKind1764610000000 } from './1764610000000-job-claim-by-kind';
import { SigningSecretGrace1764640000000 } from './1764640000000-signing-secret-grace';
import { TechnologyTimeline1764650000000 } from './1764650000000-technology-timeline';
import { TrendAggregates1764670000000 } from './1764670000000-trend-aggregates';
import { Monitors1764680000000 } from './1764680000000-monitors';
import { Vulnerabilities1764710000000 } from './1764710000000-vulnerabilities';
import { VulnerabilityChanges1764720000000 } from './1764720000000-vulnerability-changes';
import { ExposureLiveIndex1764730000000 } from './1764730000000-exposure-live-index';
import { TrendTotals1764740000000 } from './1764740000000-trend-totals';
import { TechnologyLiveVersions1764760000000 } from './1764760000000-technology-live-versions';

/** Every migration, in timestamp order (the order TypeORM runs them in). One set runs on SQLite and MySQL/MariaDB. */
export const MIGRATIONS = [
  PlatformAccounts1763830000000,
  JobsAndCallbacks1763840000000,
  SiteIndex1763850000000,
  SealedSigningSecrets1763901000000,
  RetentionIndexes1763901000001,
  LedgerIdempotencyKey1763903000000,
  SiteEnrichmentStorage1763920000000,
  EnrichmentPages1763940000000,
  DomainRanks1763941000000,
  LeadLists1763950000000,
  DatasetOrders1764000000000,
  LeadListMerge1764100000000,
  PageValidators1764200000000,
  KeyRevocations1764300000000,
  SiteScheme1764400000000,
  DownloadOrigins1764410000000,
  FingerprintPacks1764500000000,
  FingerprintProvenance1764510000000,
  HostBackoffs1764600000000,
  JobClaimByKind1764610000000,
  SigningSecretGrace1764640000000,
  TechnologyTimeline1764650000000,
  TrendAggregates1764670000000,
  Monitors1764680000000,
  Vulnerabilities1764710000000,
  VulnerabilityChanges1764720000000,
  ExposureLiveIndex1764730000000,
  TrendTotals1764740000000,
  TechnologyLiveVersions1764760000000,
];
