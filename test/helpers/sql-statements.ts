import type { Logger } from 'typeorm';
import type { Database } from '../../src/storage/database';

/**
 * The SQL statements TypeORM runs on `db` while `work` runs, in order: what a test counts to show a
 * read is batched (its logger sees every query, whether logging is on or not).
 */
export async function statementsDuring(db: Database, work: () => Promise<unknown>): Promise<string[]> {
  const dataSource = db.dataSource as unknown as { logger: Logger };
  const original = dataSource.logger;
  const seen: string[] = [];
  const counting: Logger = Object.create(original);
  counting.logQuery = (query: string) => {
    seen.push(query);
  };
  dataSource.logger = counting;
  try {
    await work();
  } finally {
    dataSource.logger = original;
  }
  return seen;
}
