import type { EntityManager } from 'typeorm';
import { Database } from './database';
import { AccountEntity } from './entities/account.entity';
import { CallbackDeliveryEntity } from './entities/callback-delivery.entity';

/** The callback delivery log (callback_deliveries) and the signing secrets deliveries are signed with. */
export class CallbackRepository {
  constructor(private readonly db: Database) {}

  /** Adds a delivery in the caller's transaction; the stored delivery. */
  async insert(m: EntityManager, values: Partial<CallbackDeliveryEntity>): Promise<CallbackDeliveryEntity> {
    const delivery = m.create(CallbackDeliveryEntity, values);
    await m.insert(CallbackDeliveryEntity, delivery);
    return delivery;
  }

  /**
   * An account's deliveries, newest first (by creation time, then id), at most `take`, older than
   * the delivery `before` when given.
   */
  page(
    accountId: number,
    take: number,
    before?: Pick<CallbackDeliveryEntity, 'createdAt' | 'id'>,
  ): Promise<CallbackDeliveryEntity[]> {
    const query = this.db.manager
      .createQueryBuilder(CallbackDeliveryEntity, 'd')
      .where('d.accountId = :accountId', { accountId })
      .orderBy('d.createdAt', 'DESC')
      .addOrderBy('d.id', 'DESC')
      .take(take);
    if (before !== undefined) {
      query.andWhere('(d.createdAt < :at OR (d.createdAt = :at AND d.id < :id))', {
        at: before.createdAt,
        id: before.id,
      });
    }
    return query.getMany();
  }

  /** A delivery, of this account when `accountId` is given. */
  get(deliveryId: string, accountId?: number): Promise<CallbackDeliveryEntity | null> {
    return this.db.manager.findOne(CallbackDeliveryEntity, {
      where: accountId === undefined ? { id: deliveryId } : { id: deliveryId, accountId },
    });
  }

  /** The account's stored signing secrets (as stored: possibly sealed), null where it has none. */
  async storedSigningSecrets(
    accountId: number,
  ): Promise<{ current: string | null; previous: string | null; previousUntil: Date | null }> {
    const account = await this.db.manager.findOne(AccountEntity, {
      where: { id: accountId },
      select: {
        id: true,
        signingSecret: true,
        previousSigningSecret: true,
        previousSigningSecretUntil: true,
      },
    });
    return {
      current: account?.signingSecret ?? null,
      previous: account?.previousSigningSecret ?? null,
      previousUntil: account?.previousSigningSecretUntil ?? null,
    };
  }

  /** The account's delivery pending again from `now`, in the caller's transaction; whether it exists. */
  async markPending(m: EntityManager, accountId: number, deliveryId: string, now: Date): Promise<boolean> {
    const updated = await m.update(
      CallbackDeliveryEntity,
      { id: deliveryId, accountId },
      { status: 'pending', nextAttemptAt: now, deliveredAt: null },
    );
    return Boolean(updated.affected);
  }

  /** Counts an attempt that got through, in a transaction of its own. */
  async recordDelivered(deliveryId: string, statusCode: number, at: Date): Promise<void> {
    await this.db.transaction((m) =>
      m.update(
        CallbackDeliveryEntity,
        { id: deliveryId },
        {
          status: 'delivered',
          attempts: () => 'attempts + 1',
          lastStatusCode: statusCode,
          lastError: null,
          deliveredAt: at,
          nextAttemptAt: null,
        },
      ),
    );
  }

  /** Counts a failed attempt: pending again at `nextAttemptAt`, or failed for good when it is null. */
  async recordFailed(
    deliveryId: string,
    failure: { statusCode: number | null; error: string; nextAttemptAt: Date | null },
  ): Promise<void> {
    await this.db.transaction((m) =>
      m.update(
        CallbackDeliveryEntity,
        { id: deliveryId },
        {
          status: failure.nextAttemptAt === null ? 'failed' : 'pending',
          attempts: () => 'attempts + 1',
          lastStatusCode: failure.statusCode,
          lastError: failure.error,
          nextAttemptAt: failure.nextAttemptAt,
        },
      ),
    );
  }
}
