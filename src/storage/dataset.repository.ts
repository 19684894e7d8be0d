import type { EntityManager } from 'typeorm';
import { Database } from './database';
import { DatasetOrderEntity, type DatasetOrderStatus } from './entities/dataset-order.entity';

/** Dataset orders (dataset_orders): their rows and their moves from one status to the next. */
export class DatasetRepository {
  constructor(private readonly db: Database) {}

  /** Adds an order in the caller's transaction. */
  async insert(m: EntityManager, order: DatasetOrderEntity): Promise<void> {
    await m.insert(DatasetOrderEntity, order);
  }

  byRef(orderRef: string): Promise<DatasetOrderEntity | null> {
    return this.db.manager.findOne(DatasetOrderEntity, { where: { orderRef } });
  }

  /** The account's order, or null. */
  owned(accountId: number, orderRef: string): Promise<DatasetOrderEntity | null> {
    return this.db.manager.findOne(DatasetOrderEntity, { where: { orderRef, accountId } });
  }

  /** The account's orders, newest first. */
  ofAccount(accountId: number): Promise<DatasetOrderEntity[]> {
    return this.db.manager.find(DatasetOrderEntity, {
      where: { accountId },
      order: { createdAt: 'DESC', orderRef: 'ASC' },
    });
  }

  /**
   * Moves an order from `from` to the status in `changes` (with the other columns there), in the
   * caller's transaction, only if it is still in `from` (compare-and-set); whether it moved.
   */
  async move(
    m: EntityManager,
    orderRef: string,
    from: DatasetOrderStatus,
    changes: Partial<DatasetOrderEntity> & { status: DatasetOrderStatus },
  ): Promise<boolean> {
    const result = await m
      .createQueryBuilder()
      .update(DatasetOrderEntity)
      .set(changes)
      .where('order_ref = :orderRef AND status = :from', { orderRef, from })
      .execute();
    return Boolean(result.affected);
  }

  /** Stores why the order's last step failed (outside any transaction). */
  async recordError(orderRef: string, error: string): Promise<void> {
    await this.db.manager.update(DatasetOrderEntity, { orderRef }, { error });
  }
}
