import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/** A monitor: which changes an account wants called back, and how often its sites are re-analysed. */
@Entity('monitors')
@Index('idx_monitors_account', ['accountId', 'id'])
@Index('idx_monitors_has_domains', ['hasDomains'])
export class MonitorEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'int' })
  accountId: number;

  @Column({ name: 'callback_url', type: 'varchar', length: 2048 })
  callbackUrl: string;

  /** JSON list of technology slugs ([]: none named). */
  @Column({ type: 'text' })
  technologies: string;

  /** JSON list of category slugs. */
  @Column({ type: 'text' })
  categories: string;

  /** JSON list of change kinds ([]: every kind). */
  @Column({ type: 'varchar', length: 80 })
  kinds: string;

  /** Whether it names sites (monitor_domains rows); one without watches every site of the index. */
  @Column({ name: 'has_domains', type: 'boolean' })
  hasDomains: boolean;

  @Column({ name: 'recrawl_days', type: 'int' })
  recrawlDays: number;

  @TimeColumn({ name: 'created_at' })
  createdAt: Date;
}

/** A site a monitor watches, and when the freshness scheduler next looks at it. */
@Entity('monitor_domains')
@Index('idx_monitor_domains_hostname', ['hostname'])
@Index('idx_monitor_domains_domain', ['domain'])
@Index('idx_monitor_domains_next', ['nextCrawlAt'])
@Index('idx_monitor_domains_account', ['accountId', 'hostname'])
export class MonitorDomainEntity {
  @PrimaryColumn({ name: 'monitor_id', type: 'int' })
  monitorId: number;

  /** The site's index key (host without www., with a port when not the default). */
  @PrimaryColumn({ type: 'varchar', length: 260 })
  hostname: string;

  /** The registrable domain when the watch covers its subdomains too (the name given was one). */
  @Column({ type: 'varchar', length: 260, nullable: true })
  domain: string | null;

  @Column({ name: 'account_id', type: 'int' })
  accountId: number;

  /** The monitor's recrawlDays, kept on each of its sites for the scheduler. */
  @Column({ name: 'recrawl_days', type: 'int' })
  recrawlDays: number;

  @TimeColumn({ name: 'next_crawl_at' })
  nextCrawlAt: Date;
}
