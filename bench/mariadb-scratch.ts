import { createConnection } from 'mysql2/promise';

/**
 * A fresh database on the MariaDB server at `serverUrl` for one measurement (named
 * `<prefix>_<time>`), dropped afterwards whatever the measurement did.
 */
export async function withMariaDbDatabase<T>(
  serverUrl: string,
  prefix: string,
  work: (url: string) => Promise<T>,
): Promise<T> {
  const server = new URL(serverUrl.replace(/^mariadb:/, 'mysql:'));
  const name = `${prefix}_${Date.now().toString(36)}`;
  const connect = () => connectTo(server);
  const admin = await connect();
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.end();
  const url = new URL(server.toString());
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    const cleanup = await connect();
    await cleanup.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await cleanup.end();
  }
}

/**
 * The server setting that decides whether a large index is read from memory or from disk, printed
 * beside MariaDB figures so that each figure says which it was.
 */
export async function describeBufferPool(db: { query(sql: string): Promise<unknown> }): Promise<string> {
  const [row] = (await db.query(
    'SELECT @@innodb_buffer_pool_size AS pool, ' +
      '(SELECT SUM(data_length + index_length) FROM information_schema.tables WHERE table_schema = DATABASE()) AS used',
  )) as { pool: number | string; used: number | string | null }[];
  const mb = (bytes: number | string | null) => Math.round(Number(bytes ?? 0) / 1048576);
  return `innodb_buffer_pool_size ${mb(row.pool)} MB, this database's tables and indexes ${mb(row.used)} MB`;
}

/**
 * A database named `name` on the MariaDB server at `serverUrl`, created when missing and left in
 * place afterwards (a benchmark's build kept for its next run): its URL.
 */
export async function keptMariaDbDatabase(serverUrl: string, name: string): Promise<string> {
  const server = new URL(serverUrl.replace(/^mariadb:/, 'mysql:'));
  const admin = await connectTo(server);
  await admin.query(`CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.end();
  const url = new URL(server.toString());
  url.pathname = `/${name}`;
  return url.toString();
}

/** A connection to the server itself (no database chosen). */
function connectTo(server: URL) {
  return createConnection({
    host: server.hostname,
    port: Number(server.port || 3306),
    user: decodeURIComponent(server.username),
    password: decodeURIComponent(server.password),
  });
}
