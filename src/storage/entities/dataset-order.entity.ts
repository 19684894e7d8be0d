import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/** quoting (job computing the quote) → new (quoted) → paid (charged; file being built) → complete. */
export const DATASET_ORDER_STATUSES = ['quoting', 'new', 'paid', 'complete', 'failed'] as const;
export type DatasetOrderStatus = (typeof DATASET_ORDER_STATUSES)[number];

/** A dataset order (POST /dataset/v1/). Its websites and ZIP are those of the lead list listId. */
@Entity('dataset_orders')
@Index('idx_dataset_orders_account', ['accountId', 'createdAt'])
export class DatasetOrderEntity {
  /** ds_ + 24 hex characters. */
  @PrimaryColumn({ name: 'order_ref', type: 'varchar', length: 40 })
  orderRef: string;

  @Column({ name: 'account_id', type: 'int' })
  accountId: number;

  @Column({ name: 'list_id', type: 'varchar', length: 40 })
  listId: string;

  @Column({ type: 'varchar', length: 20 })
  status: DatasetOrderStatus;

  /** The echo of the request: {technologies, languages, tlds, matchLangTld, subset}, JSON. */
  @Column({ type: 'text' })
  query: string;

  @Column({ name: 'callback_url', type: 'varchar', length: 2048 })
  callbackUrl: string;

  /** Records per technology name, JSON; null while quoting. */
  @Column({ type: 'text', nullable: true })
  counts: string | null;

  /** Distinct websites: what the price is per. */
  @Column({ type: 'int', default: 0 })
  records: number;

  /** Decimal as a string (exact on both databases). */
  @Column({ type: 'decimal', precision: 14, scale: 2, default: 0 })
  amount: string;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error: string | null;

  @TimeColumn({ name: 'created_at' })
  createdAt: Date;

  @TimeColumn({ name: 'quoted_at', nullable: true })
  quotedAt: Date | null;

  @TimeColumn({ name: 'paid_at', nullable: true })
  paidAt: Date | null;

  @TimeColumn({ name: 'completed_at', nullable: true })
  completedAt: Date | null;

  /** Every status change: what the orderChanged watcher of other processes reads. */
  @Index('idx_dataset_orders_changed')
  @TimeColumn({ name: 'changed_at' })
  changedAt: Date;

  /**
   * The origin the order was quoted at (scheme://host[:port]): the download link of its callbacks,
   * emails and events starts with it when PUBLIC_BASE_URL is unset. Null for older orders.
   */
  @Column({ type: 'varchar', length: 300, nullable: true })
  origin: string | null;
}

/** A charge recorded by the database payment provider: one per order (order_ref is unique). */
@Entity('dataset_charges')
export class DatasetChargeEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'account_id', type: 'int' })
  accountId: number;

  @Column({ name: 'order_ref', type: 'varchar', length: 40, unique: true })
  orderRef: string;

  @Column({ type: 'decimal', precision: 14, scale: 2 })
  amount: string;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  @TimeColumn({ name: 'created_at' })
  createdAt: Date;
}
