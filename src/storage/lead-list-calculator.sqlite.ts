import type { EntityManager } from 'typeorm';
import type { Database } from './database';
import type { ListStatementWriter, SqlStatement } from './lead-list-calculator.repository';

/** SQLite: the statement is one write, a transaction of its own in the database's queue. */
export class SqliteListStatementWriter implements ListStatementWriter {
  constructor(private readonly db: Database) {}

  async write(_listId: string, sql: SqlStatement): Promise<void> {
    await this.db.transaction((m: EntityManager) => m.query(sql.text, sql.params));
  }
}
