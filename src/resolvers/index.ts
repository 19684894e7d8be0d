import { AccountResolver } from './account.resolver';
import { AnalysisResolver } from './analysis.resolver';
import { CallbackDeliveryResolver } from './callback-delivery.resolver';
import { CatalogueResolver } from './catalogue.resolver';
import { ChangeResolver } from './change.resolver';
import { TrendResolver } from './trend.resolver';
import { DatasetResolver } from './dataset.resolver';
import { DetectedTechnologyResolver } from './detected-technology.resolver';
import { ExposureResolver, SiteTechnologyExposureResolver } from './exposure.resolver';
import { EmailVerificationResolver } from './email-verification.resolver';
import { FingerprintPackResolver } from './fingerprint-pack.resolver';
import { LeadListResolver } from './lead-list.resolver';
import { LookupV2Resolver } from './lookup-v2.resolver';
import { SbomResolver } from './sbom.resolver';
import { MonitorResolver } from './monitor.resolver';
import { SiteImportResolver } from './site-import.resolver';
import { SiteResolver } from './site.resolver';
import { SubdomainResolver } from './subdomain.resolver';
import {
  CategoryNodeResolver,
  CategoryTechnologiesResolver,
  SiteConnectionResolver,
  SiteTechnologyResolver,
  TechnologyNodeResolver,
  TechnologyVersionsResolver,
} from './technology-graph.resolver';

/** Every resolver class of the schema. Add new resolvers here. */
export const RESOLVERS = [
  AccountResolver,
  AnalysisResolver,
  CallbackDeliveryResolver,
  CatalogueResolver,
  ChangeResolver,
  TrendResolver,
  DatasetResolver,
  DetectedTechnologyResolver,
  EmailVerificationResolver,
  ExposureResolver,
  SiteTechnologyExposureResolver,
  FingerprintPackResolver,
  LeadListResolver,
  LookupV2Resolver,
  SbomResolver,
  MonitorResolver,
  SiteImportResolver,
  SiteResolver,
  SubdomainResolver,
  TechnologyNodeResolver,
  TechnologyVersionsResolver,
  CategoryNodeResolver,
  CategoryTechnologiesResolver,
  SiteTechnologyResolver,
  SiteConnectionResolver,
];
