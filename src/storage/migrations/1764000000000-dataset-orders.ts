import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

/**
 * Dataset orders (POST /dataset/v1/): the orders, the charges the payment provider recorded, and a
 * purpose on lead lists, because each order computes its websites and file as an internal lead list
 * (purpose 'dataset') that the Lists endpoints do not show.
 */
export class DatasetOrders1764000000000 implements MigrationInterface {
  name = 'DatasetOrders1764000000000';

  async up(q: QueryRunner): Promise<void> {
    const time = (name: string, isNullable = false) => ({ name, type: 'datetime', precision: 3, isNullable });
    const account = {
      columnNames: ['account_id'],
      referencedTableName: 'accounts',
      referencedColumnNames: ['id'],
      onDelete: 'CASCADE',
    };
    await q.addColumn(
      'lead_lists',
      new TableColumn({ name: 'purpose', type: 'varchar', length: '10', default: "'list'" }),
    );
    await q.createTable(
      new Table({
        name: 'dataset_orders',
        columns: [
          { name: 'order_ref', type: 'varchar', length: '40', isPrimary: true },
          { name: 'account_id', type: 'int' },
          { name: 'list_id', type: 'varchar', length: '40' },
          { name: 'status', type: 'varchar', length: '20' },
          { name: 'query', type: 'text' },
          { name: 'callback_url', type: 'varchar', length: '2048' },
          { name: 'counts', type: 'text', isNullable: true },
          { name: 'records', type: 'int', default: 0 },
          { name: 'amount', type: 'decimal', precision: 14, scale: 2, default: 0 },
          { name: 'currency', type: 'varchar', length: '3' },
          { name: 'error', type: 'varchar', length: '500', isNullable: true },
          time('created_at'),
          time('quoted_at', true),
          time('paid_at', true),
          time('completed_at', true),
          time('changed_at'),
        ],
        indices: [
          new TableIndex({ name: 'idx_dataset_orders_account', columnNames: ['account_id', 'created_at'] }),
          new TableIndex({ name: 'idx_dataset_orders_changed', columnNames: ['changed_at'] }),
        ],
        foreignKeys: [account],
      }),
    );
    await q.createTable(
      new Table({
        name: 'dataset_charges',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'account_id', type: 'int' },
          // One charge per order: the unique key is what makes a repeated confirm charge once.
          { name: 'order_ref', type: 'varchar', length: '40', isUnique: true },
          { name: 'amount', type: 'decimal', precision: 14, scale: 2 },
          { name: 'currency', type: 'varchar', length: '3' },
          time('created_at'),
        ],
        foreignKeys: [account],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('dataset_charges');
    await q.dropTable('dataset_orders');
    await q.dropColumn('lead_lists', 'purpose');
  }
}
