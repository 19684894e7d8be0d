import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Requests counted toward an account's quota in one period (e.g. "M2026-11" or "D2026-11-22"). */
@Entity('usage_counters')
export class UsageCounterEntity {
  @PrimaryColumn({ name: 'account_id', type: 'int' })
  accountId: number;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  period: string;

  @Column({ type: 'int', default: 0 })
  count: number;
}
