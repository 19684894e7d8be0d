/**
 * Bulk import benchmark (issue 10): a generated Tranco-style list of IMPORT_BENCH_LINES lines
 * (default 1,000,000) imported into a fresh SQLite database and, when MariaDB answers at
 * IMPORT_BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306/test), into a fresh schema there.
 * Prints lines/s and the process's peak RSS (the import must stay under 300 MB). IMPORT_BENCH_LINES
 * chooses the size.
 *
 *   npm run bench:import
 */
import './crawl/quiet-logs';
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { loadConfig } from '../src/config';
import { Database } from '../src/db/database';
import { buildServices } from '../src/services/services';

const LINES = Math.max(1000, Number(process.env.IMPORT_BENCH_LINES ?? 1_000_000));
const MYSQL = process.env.IMPORT_BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

async function importInto(label: string, databaseUrl: string, file: string): Promise<void> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl });
  const db = await Database.open(config.DATABASE_URL);
  try {
    const services = await buildServices(config, db);
    const baseline = process.memoryUsage.rss();
    const started = process.hrtime.bigint();
    const summary = await services.siteImport.importRanks(createReadStream(file), { format: 'tranco' });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    console.log(
      `import into ${label}: ${summary.imported} domains in ${seconds.toFixed(1)} s = ` +
        `${Math.round(summary.read / seconds)} lines/s; peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB ` +
        `(the service graph alone: ${Math.round(baseline / 1_048_576)} MB)`,
    );
  } finally {
    await db.close();
  }
}

/** Writes the list in chunks, so the file's size never sits in this process's memory. */
async function writeList(file: string): Promise<void> {
  const out = createWriteStream(file);
  let chunk: string[] = [];
  for (let i = 1; i <= LINES; i++) {
    // Distinct registrable domains, some written with www. or under a two-label suffix.
    chunk.push(`${i},${i % 3 === 0 ? 'www.' : ''}site-${i}.${i % 7 === 0 ? 'co.uk' : 'com'}`);
    if (chunk.length === 10_000 || i === LINES) {
      if (!out.write(chunk.join('\n') + '\n'))
        await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = [];
    }
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}

/**
 * Each import runs in its own process, so its peak RSS is its own. The import's live memory is
 * small (the service graph, one batch, the seen-domain hashes), but V8 lets a heap full of
 * collectable batches grow to hundreds of MB before a full collection (peak RSS 511-641 MB at a
 * million lines without a cap): the old space is capped as README advises for sites:import.
 */
export const IMPORT_HEAP_FLAG = '--max-old-space-size=192';
function importInChild(label: string, databaseUrl: string, file: string): void {
  const result = spawnSync(
    process.execPath,
    [IMPORT_HEAP_FLAG, __filename, '--child', label, databaseUrl, file],
    {
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) throw new Error(`the ${label} import failed (${result.status ?? result.signal})`);
}

async function main(): Promise<void> {
  const [flag, label, databaseUrl, file] = process.argv.slice(2);
  if (flag === '--child') return importInto(label, databaseUrl, file);
  console.log(
    `load average at start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'import-bench-'));
  try {
    const file = join(dir, 'top.csv');
    await writeList(file);
    importInChild('SQLite', `sqlite:${join(dir, 'import.db')}`, file);
    const schema = `import_bench_${process.pid}`;
    let admin;
    try {
      admin = await createConnection(MYSQL);
    } catch {
      console.log(`import into MariaDB: skipped (nothing answers at ${MYSQL})`);
      return;
    }
    try {
      await admin.query(`CREATE DATABASE \`${schema}\``);
      const url = new URL(MYSQL);
      url.pathname = `/${schema}`;
      importInChild('MariaDB', url.toString(), file);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS \`${schema}\``);
      await admin.end();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    console.log(
      `load average at end: ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
