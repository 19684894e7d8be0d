/**
 * Bulk import benchmark (issue 10): a generated Tranco-style list of IMPORT_BENCH_LINES lines
 * (default 1,000,000) imported into a fresh SQLite database and, when MariaDB answers at
 * IMPORT_BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306/test), into a fresh schema there.
 * Prints lines/s and the importing process's peak RSS (the import must stay under 300 MB), each import
 * run as `npm run admin -- sites:import` runs it. IMPORT_BENCH_LINES chooses the size.
 *
 *   npm run bench:import
 */
import './crawl/quiet-logs';
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

const LINES = Math.max(1000, Number(process.env.IMPORT_BENCH_LINES ?? 1_000_000));
const MYSQL = process.env.IMPORT_BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

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
 * Each import runs as the operator runs it, `npm run admin -- sites:import` (node
 * dist/src/admin/cli.js), in its own process and without NODE_OPTIONS: the command caps its own
 * old space (src/admin/cli.ts). The peak RSS is the one the command reports at its end (of the
 * process that imported).
 */
function importInChild(label: string, databaseUrl: string, file: string): void {
  const started = process.hrtime.bigint();
  const result = spawnSync(
    process.execPath,
    [
      join(__dirname, '..', 'src', 'admin', 'cli.js'),
      'sites:import',
      '--file',
      file,
      '--format',
      'tranco',
      '--json',
    ],
    {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0)
    throw new Error(`the ${label} import failed (${result.status ?? result.signal}):\n${result.stderr}`);
  const summary = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as {
    read: number;
    imported: number;
  };
  const rss = /peak RSS (\d+) MB/.exec(result.stderr)?.[1] ?? '?';
  console.log(
    `import into ${label}: ${summary.imported} domains in ${seconds.toFixed(1)} s = ` +
      `${Math.round(summary.read / seconds)} lines/s; peak RSS ${rss} MB ` +
      `(npm run admin -- sites:import, no NODE_OPTIONS; start-up and migrations included)`,
  );
}

async function main(): Promise<void> {
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
