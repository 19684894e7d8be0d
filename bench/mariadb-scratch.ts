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
  const connect = () =>
    createConnection({
      host: server.hostname,
      port: Number(server.port || 3306),
      user: decodeURIComponent(server.username),
      password: decodeURIComponent(server.password),
    });
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
