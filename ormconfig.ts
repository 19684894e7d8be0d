import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DataSource } from 'typeorm';
import { ENTITIES } from './src/storage/entities';
import { MIGRATIONS } from './src/storage/migrations';

export type Dialect = 'sqlite' | 'mysql';

export function dialectOf(databaseUrl: string): Dialect {
  return databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'mysql';
}

/**
 * The mysql2 connection of a `mysql://` (or `mariadb://`) URL. `?socket=/path/to/mysqld.sock`
 * connects through the server's Unix socket instead of TCP (host and port are then ignored), for a
 * server on the same host: a CPU profile of stored lookups on MariaDB put mysql2's socket writes at
 * a fifth of the API process's time, much of it the kernel's loopback TCP path. (On this 2-core
 * machine one run through the socket was within the noise of TCP; see the README's hot path.)
 */
export function mysqlConnectionOf(databaseUrl: string): { url: string; socketPath?: string } {
  const url = new URL(databaseUrl.replace(/^mariadb:/, 'mysql:'));
  const socket = url.searchParams.get('socket');
  url.search = '';
  return socket ? { url: url.toString(), socketPath: socket } : { url: url.toString() };
}

/**
 * Builds the TypeORM DataSource from DATABASE_URL: `sqlite:PATH` (better-sqlite3, the embedded
 * default) or `mysql://user:pass@host:port/db[?socket=PATH]` (mysql2; MySQL 8 / MariaDB 10.6+). The
 * schema comes only from migrations; `synchronize` stays off.
 */
export function createDataSource(databaseUrl: string): DataSource {
  if (dialectOf(databaseUrl) === 'sqlite') {
    const path = databaseUrl.slice('sqlite:'.length);
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
    return new DataSource({
      type: 'better-sqlite3',
      database: path,
      entities: ENTITIES,
      migrations: MIGRATIONS,
      synchronize: false,
      // WAL lets a reader and the writer (API and worker processes) share the file; the busy
      // timeout makes a second process wait for the write lock instead of failing.
      enableWAL: true,
      timeout: 10_000,
      prepareDatabase: (db: { pragma(sql: string): unknown }) => {
        db.pragma('foreign_keys = ON');
        db.pragma('busy_timeout = 10000');
      },
    });
  }
  return new DataSource({
    type: 'mysql',
    ...mysqlConnectionOf(databaseUrl),
    entities: ENTITIES,
    migrations: MIGRATIONS,
    synchronize: false,
    charset: 'utf8mb4',
    timezone: 'Z',
    extra: { connectionLimit: 20 },
  });
}
