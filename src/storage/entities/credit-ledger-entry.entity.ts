import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/** One credit movement; written in the same transaction as the balance change it explains. */
@Entity('credit_ledger')
@Index('idx_credit_ledger_account', ['accountId', 'id'])
@Index('uq_credit_ledger_idempotency_key', ['idempotencyKey'], { unique: true })
export class CreditLedgerEntryEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'int' })
  accountId: number;

  /** Positive for grants and refunds, negative for charges. */
  @Column({ type: 'int' })
  delta: number;

  @Column({ name: 'balance_after', type: 'int' })
  balanceAfter: number;

  /** charge, grant or refund. */
  @Column({ type: 'varchar', length: 20 })
  kind: 'charge' | 'grant' | 'refund';

  /** What the movement was for, e.g. "GET /analyze/v1/" or "admin credits:add". */
  @Column({ type: 'varchar', length: 200 })
  reason: string;

  @Column({ name: 'request_id', type: 'varchar', length: 64, nullable: true })
  requestId: string | null;

  /** Set on movements that must happen at most once (a failed job's refund); unique. */
  @Column({ name: 'idempotency_key', type: 'varchar', length: 100, nullable: true })
  idempotencyKey: string | null;

  @TimeColumn({ name: 'created_at' })
  createdAt: Date;
}
