import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { DatasetChargeEntity } from '../../storage/entities/dataset-order.entity';

export interface ChargeRequest {
  accountId: number;
  /** The idempotency key: a provider charges one order once, however often it is asked. */
  orderRef: string;
  /** Decimal string with two places. */
  amount: string;
  currency: string;
}

export type ChargeResult = { ok: true; chargeId: string; repeated: boolean } | { ok: false; reason: string };

/**
 * Where the money comes from. Called inside the transaction that marks the order paid, so a
 * refusal (or a failure) leaves the order as it was. A card-network provider (Stripe-style: a
 * PaymentIntent with the order reference as idempotency key) implements this same interface.
 */
export interface PaymentProvider {
  charge(m: EntityManager, request: ChargeRequest): Promise<ChargeResult>;
}

/**
 * Self-hosting and tests: records each charge as a row of dataset_charges (one per order, by a
 * unique key). `cardLimit` plays a card's limit: a charge above it is declined.
 */
export class DatabasePaymentProvider implements PaymentProvider {
  constructor(private readonly cardLimit: number | undefined) {}

  async charge(m: EntityManager, request: ChargeRequest): Promise<ChargeResult> {
    const existing = await m.findOne(DatasetChargeEntity, { where: { orderRef: request.orderRef } });
    if (existing) return { ok: true, chargeId: existing.id, repeated: true };
    if (this.cardLimit !== undefined && Number(request.amount) > this.cardLimit)
      return {
        ok: false,
        reason: `the card's limit (${this.cardLimit.toFixed(2)} ${request.currency}) is below ${request.amount} ${request.currency}`,
      };
    const id = `ch_${randomBytes(12).toString('hex')}`;
    await m.insert(DatasetChargeEntity, {
      id,
      accountId: request.accountId,
      orderRef: request.orderRef,
      amount: request.amount,
      currency: request.currency,
      createdAt: new Date(),
    });
    return { ok: true, chargeId: id, repeated: false };
  }
}
