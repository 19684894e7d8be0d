import type { QueryRunner } from 'typeorm';
import type { Database } from '../src/storage/database';

/** What a bulk load runs its statements through: one connection, so its session settings hold. */
export type BulkQuery = (sql: string, parameters?: unknown[]) => Promise<unknown>;

/**
 * Runs `load` on one MariaDB connection set up for a bulk load of benchmark data: no foreign-key or
 * unique checks, large in-memory temporary tables and sort buffers (session settings only, so
 * nothing outlives the connection), and the secondary indexes of `tables` dropped first and built
 * again afterwards, each table's in one ALTER (a sorted build), instead of updated row by row. Row
 * by row, with the server's small buffer pool, every insert into an index ordered unlike the load
 * read and wrote pages on disk: that made a million-site index take an hour to build.
 *
 * An index whose leading column is a foreign key's stays (the constraint needs it); so does a
 * unique index the load relies on to drop duplicates (`keep`).
 */
export async function bulkLoad(
  db: Database,
  tables: readonly string[],
  load: (q: BulkQuery) => Promise<void>,
  keep: readonly string[] = [],
): Promise<void> {
  const runner: QueryRunner = db.dataSource.createQueryRunner();
  await runner.connect();
  const q: BulkQuery = (sql, parameters) => runner.query(sql, parameters as unknown[] | undefined);
  try {
    await q(
      'SET SESSION foreign_key_checks = 0, unique_checks = 0, ' +
        'tmp_table_size = 1073741824, max_heap_table_size = 1073741824, sort_buffer_size = 268435456',
    );
    const deferred: { table: string; adds: string[] }[] = [];
    for (const table of tables) {
      const adds = await deferIndexes(q, table, keep);
      if (adds.length > 0) deferred.push({ table, adds });
    }
    await load(q);
    for (const { table, adds } of deferred) await q(`ALTER TABLE \`${table}\` ${adds.join(', ')}`);
  } finally {
    await runner.release();
  }
}

/** Drops the table's deferrable secondary indexes; returns the clauses that add them back. */
async function deferIndexes(q: BulkQuery, table: string, keep: readonly string[]): Promise<string[]> {
  const columns = (await q(
    'SELECT index_name AS name, non_unique AS nonUnique, column_name AS col, sub_part AS part ' +
      'FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ? ' +
      "AND index_name <> 'PRIMARY' ORDER BY index_name, seq_in_index",
    [table],
  )) as { name: string; nonUnique: number | string; col: string; part: number | string | null }[];
  const foreignKeyColumns = new Set(
    (
      (await q(
        'SELECT column_name AS col FROM information_schema.key_column_usage ' +
          'WHERE table_schema = DATABASE() AND table_name = ? AND referenced_table_name IS NOT NULL',
        [table],
      )) as { col: string }[]
    ).map((r) => r.col),
  );
  const indexes = new Map<string, { unique: boolean; parts: string[]; first: string }>();
  for (const c of columns) {
    const index = indexes.get(c.name) ?? { unique: Number(c.nonUnique) === 0, parts: [], first: c.col };
    index.parts.push(c.part === null ? `\`${c.col}\`` : `\`${c.col}\`(${Number(c.part)})`);
    indexes.set(c.name, index);
  }
  const deferred = [...indexes].filter(
    ([name, i]) => !keep.includes(name) && !foreignKeyColumns.has(i.first),
  );
  if (deferred.length === 0) return [];
  await q(`ALTER TABLE \`${table}\` ${deferred.map(([name]) => `DROP INDEX \`${name}\``).join(', ')}`);
  return deferred.map(
    ([name, i]) => `ADD ${i.unique ? 'UNIQUE ' : ''}INDEX \`${name}\` (${i.parts.join(', ')})`,
  );
}
