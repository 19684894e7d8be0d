import { Database } from '../../../src/storage/database';
import { JobRunnerOptions } from '../../../src/jobs';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';

export interface OpenedTestDatabase {
  db: Database;
  url: string;
  close(): Promise<void>;
}

/** A migrated, empty database for one test file (SQLite, or MariaDB with TEST_DATABASE_URL). */
export async function openTestDatabase(): Promise<OpenedTestDatabase> {
  const test: TestDatabase = await createTestDatabase();
  const db = await Database.open(test.url);
  return {
    db,
    url: test.url,
    close: async () => {
      await db.close();
      await test.drop();
    },
  };
}

/** Runner settings small enough for tests. */
export function testRunnerOptions(
  kinds: readonly string[],
  overrides: Partial<JobRunnerOptions> = {},
): JobRunnerOptions {
  return { kinds, concurrency: 2, leaseMs: 5_000, pollIntervalMs: 25, shutdownGraceMs: 1_000, ...overrides };
}

/** A promise with its resolve function, to hold a handler until the test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
