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

  @TimeColumn({ name: 'first_seen_at' })
  firstSeenAt: Date;

  @TimeColumn({ name: 'last_analyzed_at' })
  lastAnalyzedAt: Date;
}
