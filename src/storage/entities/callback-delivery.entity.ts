import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimeColumn } from './column-types';

export type CallbackDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One signed callback and its delivery log (CallbackService). */
@Entity('callback_deliveries')
export class CallbackDeliveryEntity {
  /** A time-ordered UUID (v7), sent as the delivery id header so receivers can drop duplicates. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'account_id', type: 'int' })
  accountId: number;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  @Column({ type: 'varchar', length: 100 })
  event: string;

  /** The exact JSON text POSTed (and signed); serialised once when the callback is scheduled. */
  @Column({ type: 'text' })
  body: string;

  @Column({ type: 'varchar', length: 16 })
  status: CallbackDeliveryStatus;

  /** POST attempts made so far. */
  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ name: 'last_status_code', type: 'int', nullable: true })
  lastStatusCode: number | null;

  @Column({ name: 'last_error', type: 'varchar', length: 1000, nullable: true })
  lastError: string | null;

  @TimeColumn({ name: 'created_at' })
  createdAt: Date;

  @TimeColumn({ name: 'delivered_at', nullable: true })
  deliveredAt: Date | null;

  /** When the next attempt is due while pending; null once delivered or failed. */
  @TimeColumn({ name: 'next_attempt_at', nullable: true })
  nextAttemptAt: Date | null;
}
