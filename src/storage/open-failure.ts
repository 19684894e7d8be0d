import { resolve } from 'node:path';
import { StartupError } from './migrator';

/** DATABASE_URL as it may be shown: the password, if any, masked. */
export function shownDatabaseUrl(databaseUrl: string): string {
  if (databaseUrl.startsWith('sqlite:')) return databaseUrl;
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return databaseUrl.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/** The SQLite file DATABASE_URL names (absolute), or null for MySQL/MariaDB and `sqlite::memory:`. */
export function sqliteFileOf(databaseUrl: string): string | null {
  if (!databaseUrl.startsWith('sqlite:')) return null;
  const path = databaseUrl.slice('sqlite:'.length);
  return path === ':memory:' ? null : resolve(path);
}

/** Connection errors that only say the server is not there now: it may be starting, or down. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
]);

/**
 * Why the database DATABASE_URL names could not be opened, as one message that names the setting
 * and says what to check, instead of a driver's stack trace. The exit code is 2 when the setting
 * is wrong as written (a user the server refuses, a database or host name that does not exist, a
 * SQLite path that cannot be a database), as for any invalid setting, and 1 when the server could
 * not be reached, which may only mean it is not up yet.
 */
export function databaseOpenError(databaseUrl: string, error: unknown): Error {
  if (error instanceof StartupError) return error;
  const failed = error as { code?: string; message?: string; driverError?: { code?: string } } | null;
  const code = failed?.driverError?.code ?? failed?.code ?? '';
  const reason = `${failed?.message ?? String(error)}${code && !failed?.message?.includes(code) ? ` (${code})` : ''}`;
  const file = sqliteFileOf(databaseUrl);
  if (databaseUrl.startsWith('sqlite:')) {
    return new StartupError(
      `DATABASE_URL: cannot open the SQLite database ${file ?? ':memory:'}: ${reason}. ` +
        'Check the path, and that the service may create and write files in its directory.',
      2,
    );
  }
  const server = serverOf(databaseUrl);
  if (code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR') {
    return new StartupError(
      `DATABASE_URL: the MySQL/MariaDB server at ${server} refused the connection: ${reason}. ` +
        'Check the user name and password in DATABASE_URL (and the user’s grants on the database).',
      2,
    );
  }
  if (code === 'ER_BAD_DB_ERROR') {
    const name = new URL(databaseUrl).pathname.slice(1);
    return new StartupError(
      `DATABASE_URL: the MySQL/MariaDB server at ${server} has no database "${name}": create it ` +
        `(CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4) or correct the name in DATABASE_URL.`,
      2,
    );
  }
  if (code === 'ENOTFOUND') {
    return new StartupError(
      `DATABASE_URL: the host name of ${shownDatabaseUrl(databaseUrl)} does not resolve: ${reason}. ` +
        'Check the host in DATABASE_URL.',
      2,
    );
  }
  if (UNREACHABLE.has(code) || code === 'ENOENT') {
    return new StartupError(
      `DATABASE_URL: cannot reach a MySQL/MariaDB server at ${server}: ${reason}. ` +
        'Is the server running, and are the host and port (or ?socket= path) in DATABASE_URL right?',
      1,
    );
  }
  return new StartupError(
    `DATABASE_URL: cannot open the MySQL/MariaDB database ${shownDatabaseUrl(databaseUrl)}: ${reason}.`,
    1,
  );
}

function serverOf(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl.replace(/^mariadb:/, 'mysql:'));
    const socket = url.searchParams.get('socket');
    return socket ? `the socket ${socket}` : `${url.hostname}:${url.port || '3306'}`;
  } catch {
    return shownDatabaseUrl(databaseUrl);
  }
}
