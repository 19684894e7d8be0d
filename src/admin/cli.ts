import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { Config, ConfigError, loadConfig } from '../config';
import { Database, openOptions } from '../db/database';
import { migrateUnderLock, migrationStatus, StartupError } from '../db/migrator';
import { AppError } from '../errors';
import { logger } from '../logger';
import { generateSecretsKey, parseSecretsKey } from '../services/secret-vault';
import { buildServices, Services } from '../services/services';

/**
 * The operator's command line (`npm run admin -- <command> [options]`). It opens the configured
 * database (DATABASE_URL, migrating it if needed) and calls the same services as the API.
 * Secrets (API keys, signing secrets) are printed once, here, and never again.
 */
const USAGE = `Usage: npm run admin -- <command> [options]

  account:create --name NAME --email ADDR --plan PLAN [--credits N] [--json]
  account:show   --account ID [--json]
  account:plan   --account ID --plan PLAN
  key:create     --account ID [--json]
  key:revoke     (--key KEY_ID | --api-key KEY)
  credits:add    --account ID --credits N [--json]
  secret:create  --account ID [--json]
  secrets:generate-key      print a new random SECRETS_KEY
  secrets:rotate-key [--json]  re-encrypt every signing secret: old key in SECRETS_KEY (unset when
                 they are plaintext), new key in SECRETS_NEW_KEY; then set SECRETS_KEY to the new key
  db:migrate     [--json]   run pending migrations (under the migration lock)
  db:status      [--json]   applied and pending migrations; exit code 3 when some are pending

Plans: demo, small, medium, large, business.`;

type Options = Record<string, string | boolean | undefined>;

/** Commands on the schema itself: they open the database without migrating it first. */
const DB_COMMANDS: Record<
  string,
  (db: Database, config: Config) => Promise<{ result: unknown; code: number }>
> = {
  'db:migrate': async (db, config) => {
    const { applied, lock } = await migrateUnderLock(db.dataSource, config.MIGRATION_LOCK_TIMEOUT_SECONDS);
    const { applied: all } = await migrationStatus(db.dataSource);
    return { result: { applied, lock, total: all.length }, code: 0 };
  },
  'db:status': async (db) => {
    const status = await migrationStatus(db.dataSource);
    return { result: status, code: status.pending.length > 0 ? 3 : 0 };
  },
};

const COMMANDS: Record<string, (s: Services, o: Options) => Promise<unknown>> = {
  'account:create': async (s, o) => {
    const created = await s.accounts.createAccount({
      name: text(o, 'name'),
      email: text(o, 'email'),
      plan: text(o, 'plan'),
      credits: o.credits === undefined ? 0 : whole(o, 'credits'),
    });
    return { accountId: created.accountId, apiKey: created.apiKey };
  },
  'account:show': async (s, o) => s.accounts.show(whole(o, 'account')),
  'account:plan': async (s, o) => {
    await s.accounts.setPlan(whole(o, 'account'), text(o, 'plan'));
    return s.accounts.show(whole(o, 'account'));
  },
  'key:create': async (s, o) => {
    const created = await s.accounts.createKey(whole(o, 'account'));
    return { accountId: created.accountId, keyId: created.keyId, apiKey: created.apiKey };
  },
  'key:revoke': async (s, o) => {
    const keyId = await s.accounts.revokeKey(
      o['api-key'] !== undefined ? { apiKey: text(o, 'api-key') } : { keyId: whole(o, 'key') },
    );
    return { keyId, revoked: true };
  },
  'credits:add': async (s, o) => {
    const accountId = whole(o, 'account');
    await s.accounts.requireAccount(accountId);
    const credits = await s.credits.grant(accountId, whole(o, 'credits'), 'admin credits:add');
    return { accountId, credits };
  },
  'secrets:rotate-key': async (s) => {
    const text = process.env.SECRETS_NEW_KEY;
    const key = text ? parseSecretsKey(text) : null;
    if (!key) {
      throw new UsageError(
        'SECRETS_NEW_KEY must hold the new key: 32 bytes as base64 (44 characters) or 64 hex digits',
      );
    }
    return s.secrets.rotate(key);
  },
  'secret:create': async (s, o) => {
    const accountId = whole(o, 'account');
    return { accountId, signingSecret: await s.accounts.createSigningSecret(accountId) };
  },
};

function text(o: Options, name: string): string {
  const value = o[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

function whole(o: Options, name: string): number {
  const value = text(o, name);
  if (!/^\d{1,15}$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'secrets:generate-key') {
    console.log(generateSecretsKey());
    return 0;
  }
  const run = command ? COMMANDS[command] : undefined;
  const dbRun = command ? DB_COMMANDS[command] : undefined;
  if (!run && !dbRun) {
    console.error(command ? `Unknown command ${command}\n\n${USAGE}` : USAGE);
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      plan: { type: 'string' },
      credits: { type: 'string' },
      account: { type: 'string' },
      key: { type: 'string' },
      'api-key': { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  const config = loadConfig();
  logger.level = 'warn';
  const db = await Database.open(config.DATABASE_URL, dbRun ? { migrate: 'skip' } : openOptions(config));
  try {
    let result: unknown;
    let code = 0;
    if (dbRun) ({ result, code } = await dbRun(db, config));
    else result = await run!(await buildServices(config, db), values);
    console.log(values.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
    return code;
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (
      error instanceof UsageError ||
      error instanceof AppError ||
      error instanceof ConfigError ||
      error instanceof StartupError
    ) {
      console.error(error.message);
    } else if ((error as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`${(error as Error).message}\n\n${USAGE}`);
    } else {
      console.error(error);
    }
    process.exit(1);
  },
);
