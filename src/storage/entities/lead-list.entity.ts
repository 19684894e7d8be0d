import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/** Calculating → Ready (or Failed / Insufficient) → Complete (finalized and paid). */
export const LIST_STATUSES = ['Calculating', 'Ready', 'Failed', 'Insufficient', 'Complete'] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];

/**
 * A lead list (POST /v2/lists): the normalised request, its state, and what the calculation found.
 * The websites themselves are rows of lead_list_sites; the files live under LISTS_DIR/<id>/.
 * A deleted list keeps its row (deletedAt set, sites and files removed) so the daily limit counts it.
 */
@Entity('lead_lists')
@Index('idx_lead_lists_account', ['accountId', 'createdAt'])
export class LeadListEntity {
  /** lst_ + 24 hex characters. */
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'account_id', type: 'int' })
  accountId: number;

  @Column({ type: 'varchar', length: 20 })
  status: ListStatus;

  /** 'list': a customer's lead list; 'dataset': the websites and file of a dataset order (hidden from Lists). */
  @Column({ type: 'varchar', length: 10, default: 'list' })
  purpose: 'list' | 'dataset';

  /** The validated request (see lead-list-request.ts), JSON. */
  @Column({ type: 'text' })
  request: string;

  /** Websites per technology slug, JSON object; null while Calculating. */
  @Column({ name: 'tech_rows', type: 'text', nullable: true })
  rows: string | null;

  /** Websites holding a value per requested field set, JSON object; null while Calculating. */
  @Column({ name: 'set_rows', type: 'text', nullable: true })
  setRows: string | null;

  /** Distinct websites in the list (a site in two technology files counts once). */
  @Column({ type: 'int', default: 0 })
  websites: number;

  /** 1 credit per website. */
  @Column({ name: 'total_credits', type: 'int', default: 0 })
  totalCredits: number;

  /** Why the list is Failed. */
  @Column({ type: 'varchar', length: 500, nullable: true })
  error: string | null;

  @TimeColumn({ name: 'created_at' })
  createdAt: Date;

  @TimeColumn({ name: 'ready_at', nullable: true })
  readyAt: Date | null;

  @TimeColumn({ name: 'completed_at', nullable: true })
  completedAt: Date | null;

  @TimeColumn({ name: 'deleted_at', nullable: true })
  deletedAt: Date | null;

  /**
   * The origin the list was created at (scheme://host[:port]): its callback's and event's download
   * links start with it when PUBLIC_BASE_URL is unset. Null for lists made before it was kept.
   */
  @Column({ type: 'varchar', length: 300, nullable: true })
  origin: string | null;
}

/** One website of a list under one technology (a technology's file holds its rows). */
/** Keyed (list, technology, site): a technology file is a key range; a list's sites too. */
@Entity('lead_list_sites')
export class LeadListSiteEntity {
  @PrimaryColumn({ name: 'list_id', type: 'varchar', length: 40 })
  listId: string;

  @PrimaryColumn({ type: 'varchar', length: 120 })
  slug: string;

  @PrimaryColumn({ name: 'site_id', type: 'int' })
  siteId: number;

  /** subdomains=merge: the highest version over the domain's matching sites (else null: the site's own). */
  @Column({ type: 'varchar', length: 60, nullable: true })
  version: string | null;

  /** subdomains=merge: the earliest first detection over the domain's matching sites. */
  @TimeColumn({ name: 'first_detected', nullable: true })
  firstDetected: Date | null;

  /** subdomains=merge: the latest confirmation over the domain's matching sites. */
  @TimeColumn({ name: 'last_detected', nullable: true })
  lastDetected: Date | null;
}
