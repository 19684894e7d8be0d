import { PlatformAccounts1763830000000 } from './1763830000000-platform-accounts';
import { JobsAndCallbacks1763840000000 } from './1763840000000-jobs-and-callbacks';
import { SiteIndex1763850000000 } from './1763850000000-site-index';
import { EnrichmentPages1763940000000 } from './1763940000000-enrichment-pages';
import { SiteEnrichmentStorage1763920000000 } from './1763920000000-site-enrichment-storage';
import { LeadLists1763950000000 } from './1763950000000-lead-lists';

/** Every migration, in order. One set runs on SQLite and MySQL/MariaDB. Append new ones here. */
export const MIGRATIONS = [
  PlatformAccounts1763830000000,
  JobsAndCallbacks1763840000000,
  SiteIndex1763850000000,
  SiteEnrichmentStorage1763920000000,
  EnrichmentPages1763940000000,
  LeadLists1763950000000,
];
