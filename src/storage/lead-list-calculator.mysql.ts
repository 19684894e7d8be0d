import type { EntityManager } from 'typeorm';
import type { Database } from './database';
import type { ListStatementWriter, SqlStatement } from './lead-list-calculator.repository';

/**
 * MariaDB/MySQL: the statement runs in a transaction of its own at READ COMMITTED: the SELECT is a
 * consistent read that locks no row of site_technologies or sites (at REPEATABLE READ InnoDB would
 * share-lock every row it reads, holding up crawls writing to the index meanwhile).
 *
 * The list's row is share-locked once and the foreign key of lead_list_sites is not checked row by
 * row, because InnoDB's check looks the list up and share-locks it again for every row inserted (a
 * quarter of a large list's time: docs/performance.md). The lock held to the commit
 * keeps what the check guaranteed: the list cannot be removed meanwhile (its removal waits, then
 * cascades to these rows), and a list already gone gets no rows.
 */
export class MysqlListStatementWriter implements ListStatementWriter {
  constructor(private readonly db: Database) {}

  async write(listId: string, sql: SqlStatement): Promise<void> {
    await this.db.dataSource.transaction('READ COMMITTED', async (m: EntityManager) => {
      const held = (await m.query('SELECT id FROM lead_lists WHERE id = ? LOCK IN SHARE MODE', [
        listId,
      ])) as unknown[];
      if (held.length === 0) throw new Error(`list ${listId} was removed during its calculation`);
      await m.query('SET SESSION foreign_key_checks = 0');
      try {
        await m.query(sql.text, sql.params);
      } finally {
        await m.query('SET SESSION foreign_key_checks = 1');
      }
    });
  }
}
