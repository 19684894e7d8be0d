import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/**
 * A host name the service has seen under a registrable domain (crawl links and assets, redirects,
 * CSP/CORS headers, certificate names, DNS, discovery): the subdomain finder's source.
 * Ordered by (domain, name) for stable cursor pagination.
 */
@Entity('observed_hostnames')
@Index('uq_observed_hostnames', ['domain', 'name'], { unique: true })
export class ObservedHostnameEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 253 })
  domain: string;

  @Column({ type: 'varchar', length: 253 })
  name: string;

  /** The first source that revealed it: crawl, certificate, dns, wordlist or zone-transfer. */
  @Column({ type: 'varchar', length: 20 })
  source: string;

  /** Null until checked; false names are kept but not returned by default. */
  @Column({ type: 'boolean', nullable: true })
  resolvable: boolean | null;

  @TimeColumn({ name: 'first_seen_at' })
  firstSeenAt: Date;

  @TimeColumn({ name: 'last_seen_at' })
  lastSeenAt: Date;
}
