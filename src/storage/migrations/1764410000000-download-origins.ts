import { MigrationInterface, QueryRunner } from 'typeorm';

const TABLES = ['lead_lists', 'dataset_orders'];

/**
 * lead_lists.origin and dataset_orders.origin: the origin (scheme://host[:port]) of the request
 * that created the list or quoted the order, so the download links of callbacks, emails and events
 * (made later, in a worker, with no request at hand) are absolute when PUBLIC_BASE_URL is unset.
 * Rows from before stay null: their links stay paths, as they were. A plain ALTER TABLE on both
 * databases (TypeORM's addColumn rebuilds the table on SQLite).
 */
export class DownloadOrigins1764410000000 implements MigrationInterface {
  name = 'DownloadOrigins1764410000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of TABLES) await q.query(`ALTER TABLE ${table} ADD COLUMN origin varchar(300) NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of TABLES) await q.query(`ALTER TABLE ${table} DROP COLUMN origin`);
  }
}
