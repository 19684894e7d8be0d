import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/**
 * A website in the index, keyed by host name without a leading "www." (example.com and
 * www.example.com are one site; blog.example.com is its own site, marked as a subdomain).
 * The columns lead lists filter on (domain, tld, language, country, traffic) are plain, indexed
 * columns, so filtering needs no rewrite when lists arrive.
 */
@Entity('sites')
export class SiteEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Index('uq_sites_hostname', { unique: true })
  @Column({ type: 'varchar', length: 253 })
  hostname: string;

  /** Registrable domain (public suffix list), e.g. example.co.uk. */
  @Index('idx_sites_domain')
  @Column({ type: 'varchar', length: 253 })
  domain: string;

  /** Public suffix with its leading dot, e.g. ".co.uk". */
  @Index('idx_sites_tld')
  @Column({ type: 'varchar', length: 64 })
  tld: string;

  @Column({ name: 'is_subdomain', type: 'boolean', default: false })
  isSubdomain: boolean;

  /** Primary language tag of the site (ISO 639-1, optionally with region: en, en-us). */
  @Index('idx_sites_language')
  @Column({ type: 'varchar', length: 20, nullable: true })
  language: string | null;

  /** Every language tag seen, JSON array. */
  @Column({ type: 'text' })
  languages: string;

  /** Two-letter country code, when an enrichment step knows it. */
  @Index('idx_sites_country')
  @Column({ type: 'varchar', length: 2, nullable: true })
  country: string | null;

  @Column({ type: 'varchar', length: 300, nullable: true })
  title: string | null;

  /** Page views the service recorded for this site, all time: the traffic proxy lists sort by. */
  @Index('idx_sites_hits')
  @Column({ type: 'int', default: 0 })
  hits: number;

  /** Traffic rank, 1 = most traffic: from an imported ranked domain list, else observed (rankSource). */
  @Index('idx_sites_traffic_rank')
  @Column({ name: 'traffic_rank', type: 'int', nullable: true })
  trafficRank: number | null;

  /** Where trafficRank comes from: 'import' (a ranked list) or 'observed' (this service's page views). */
  @Column({ name: 'rank_source', type: 'varchar', length: 10, nullable: true })
  rankSource: 'import' | 'observed' | null;

  /** The scheme the site last answered on (its analysis's final URL); null: not recorded yet. */
  @Column({ type: 'varchar', length: 5, nullable: true })
  scheme: 'http' | 'https' | null;

  /** The enrichment's industry, when the site states one. */
  @Index('idx_sites_industry')
  @Column({ type: 'varchar', length: 100, nullable: true })
  industry: string | null;

  /** The enrichment's company size label (1-10 … 10001+), when the site states its employees. */
  @Index('idx_sites_company_size')
  @Column({ name: 'company_size', type: 'varchar', length: 20, nullable: true })
  companySize: string | null;

  /** How many languages the site declares or is written in (lists exclude multilingual sites by it). */
  @Column({ name: 'language_count', type: 'int', default: 0 })
  languageCount: number;

  /** The enrichment field sets holding at least one value: bit i = ENRICHMENT_SETS[i] (see site-sets.ts). */
  @Column({ name: 'sets_mask', type: 'int', default: 0 })
  setsMask: number;

  /** When the enriched record was last written (null: never enriched). */
  @TimeColumn({ name: 'enriched_at', nullable: true })
  enrichedAt: Date | null;

  /** When the service last tried to analyse the site, successfully or not. */
  @TimeColumn({ name: 'crawl_attempted_at', nullable: true })
  crawlAttemptedAt: Date | null;

  @TimeColumn({ name: 'first_seen_at' })
  firstSeenAt: Date;

  @TimeColumn({ name: 'last_analyzed_at' })
  lastAnalyzedAt: Date;
}
