import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { Config, ConfigError, loadConfig } from '../platform/config';
import { Database, dialectOf, openOptions } from '../storage/database';
import { backupSqliteDatabase, mariadbDumpCommand } from '../storage/sqlite-backup';
import { migrateUnderLock, migrationStatus, StartupError } from '../storage/migrator';
import { AppError } from '../errors';
import { logger } from '../platform/logger';
import { generateSecretsKey, parseSecretsKey } from '../services/platform/secret-vault';
import { buildServices, Services } from '../services/services';
import { connectSharedState } from '../redis/shared-state';
import { TREND_BREAK_DEFAULTS } from '../services/fingerprints/trend-breaks';
import { sitesImport } from './sites-import.command';
import { fingerprintsCheck } from './fingerprints-check.command';
import { fingerprintsDiff } from './fingerprints-diff.command';
import { fingerprintsLoad } from './fingerprints-load.command';
import { fingerprintsStatus } from './fingerprints-status.command';
import { fingerprintsUnload } from './fingerprints-unload.command';
import { fingerprintsActivate } from './fingerprints-activate.command';
import { vulnsImport } from './vulns-import.command';
import { vulnsStatus } from './vulns-status.command';
import { standardWebhooksSecret } from '../services/platform/webhook-signatures';

/**
 * The operator's command line (`npm run admin -- <command> [options]`). It opens the configured
 * database (DATABASE_URL, migrating it if needed) and calls the same services as the API.
 * Secrets (API keys, signing secrets) are printed once, here, and never again.
 */
interface Command {
  synopsis: string;
  description: string;
  /** Most commands call the services over the migrated database. */
  run?(s: Services, o: Options): Promise<unknown>;
  /** Commands on the schema itself open the database without migrating it first. */
  runOnSchema?(db: Database, config: Config): Promise<{ result: unknown; code: number }>;
  /** Commands that need no database. */
  runAlone?(): string;
  /** Commands that open what they need themselves (db:backup: never creates or migrates a database). */
  runOnConfig?(config: Config, o: Options): Promise<unknown>;
  /** Commands over the services that print their own output and choose their exit code. */
  runWithCode?(s: Services, o: Options): Promise<{ output: string; code: number }>;
  /** Commands on files alone (no configuration, no database): their own output and exit code. */
  runOnFiles?(o: Options): { output: string; code: number };
  /**
   * Commands that check files first (refusing bad ones before any database is opened: their output
   * and exit code), then run over the services with output of their own.
   */
  runChecked?(
    o: Options,
  ): { refused: TextResult } | { run(s: Services, config: Config): Promise<TextResult> };
  /** Exit code of a usage error, when 1 means something else for the command (an invalid pack). */
  usageExitCode?: number;
}

type Options = Record<string, string | boolean | undefined>;
type TextResult = { output: string; code: number };

const COMMANDS: Record<string, Command> = {
  'account:create': {
    synopsis: '--name NAME --email ADDR --plan PLAN [--credits N] [--json]',
    description: 'New account and its first API key (printed once). An email may hold one account.',
    run: async (s, o) => {
      const created = await s.accounts.createAccount({
        name: text(o, 'name'),
        email: text(o, 'email'),
        plan: text(o, 'plan'),
        credits: o.credits === undefined ? 0 : whole(o, 'credits'),
      });
      return { accountId: created.accountId, apiKey: created.apiKey };
    },
  },
  'account:list': {
    synopsis: '[--json]',
    description: 'Every account: id, name, email, plan, credits, creation time.',
    run: async (s) => s.accounts.listAccounts(),
  },
  'account:show': {
    synopsis: '--account ID [--json]',
    description: 'Plan, balance, keys (prefixes only), whether a signing secret exists.',
    run: async (s, o) => s.accounts.show(whole(o, 'account')),
  },
  'account:plan': {
    synopsis: '--account ID --plan PLAN',
    description: 'Change the plan of an account.',
    run: async (s, o) => {
      await s.accounts.setPlan(whole(o, 'account'), text(o, 'plan'));
      return s.accounts.show(whole(o, 'account'));
    },
  },
  'key:create': {
    synopsis: '--account ID [--json]',
    description: 'Another API key for the account (printed once).',
    run: async (s, o) => {
      const created = await s.accounts.createKey(whole(o, 'account'));
      return { accountId: created.accountId, keyId: created.keyId, apiKey: created.apiKey };
    },
  },
  'key:revoke': {
    synopsis: '(--key KEY_ID | --api-key KEY)',
    description: 'Revoke a key; it is refused at once.',
    run: async (s, o) => {
      const keyId = await s.accounts.revokeKey(
        o['api-key'] !== undefined ? { apiKey: text(o, 'api-key') } : { keyId: whole(o, 'key') },
      );
      return { keyId, revoked: true };
    },
  },
  'credits:add': {
    synopsis: '--account ID --credits N [--json]',
    description: 'Grant N credits (N at least 1); a ledger row is written.',
    run: async (s, o) => {
      const accountId = whole(o, 'account');
      const raw = text(o, 'credits');
      const amount = /^-\d{1,15}$/.test(raw) ? Number(raw) : whole(o, 'credits');
      if (amount < 1) throw new UsageError('--credits must be at least 1 (credits are only ever added)');
      await s.accounts.requireAccount(accountId);
      const credits = await s.credits.grant(accountId, amount, 'admin credits:add');
      return { accountId, credits };
    },
  },
  'secret:create': {
    synopsis: '--account ID [--grace-hours N] [--json]',
    description:
      'Create or replace the callback signing secret (printed once, also as the whsec_ form Standard Webhooks ' +
      'verifiers take). A replaced secret keeps signing beside the new one for --grace-hours ' +
      '(SIGNING_SECRET_GRACE_HOURS, 24; 0 when it leaked).',
    run: async (s, o) => {
      const accountId = whole(o, 'account');
      const graceHours =
        o['grace-hours'] !== undefined ? whole(o, 'grace-hours') : s.config.SIGNING_SECRET_GRACE_HOURS;
      const created = await s.accounts.createSigningSecret(accountId, graceHours * 3_600_000);
      return {
        accountId,
        signingSecret: created.secret,
        standardWebhooksSecret: standardWebhooksSecret(created.secret),
        previousSecretValidUntil: created.previousValidUntil?.toISOString() ?? null,
      };
    },
  },
  'sites:import': {
    synopsis: '--file FILE [--format tranco|majestic|plain] [--limit N] [--crawl] [--json]',
    description:
      'Import a ranked domain list (Tranco rank,domain CSV by default; Majestic CSV with header; plain: one domain a line). ' +
      '--crawl enqueues a background crawl per domain (once ever). Progress on stderr, the summary as JSON.',
    run: (s, o) =>
      sitesImport(s, {
        file: text(o, 'file'),
        format: typeof o.format === 'string' ? o.format : 'tranco',
        ...(o.limit !== undefined ? { limit: whole(o, 'limit') } : {}),
        crawl: o.crawl === true,
      }),
  },
  'secrets:generate-key': {
    synopsis: '',
    description: 'Print a new random SECRETS_KEY (32 bytes, base64).',
    runAlone: () => generateSecretsKey(),
  },
  'secrets:rotate-key': {
    synopsis: '[--json]',
    description:
      'Re-encrypt every signing secret: the old key in SECRETS_KEY (unset while they are plaintext), the new one in ' +
      'SECRETS_NEW_KEY (never on the command line, where ps would show it); then set SECRETS_KEY to the new key.',
    run: async (s) => {
      const raw = process.env.SECRETS_NEW_KEY;
      const key = raw ? parseSecretsKey(raw) : null;
      if (!key)
        throw new UsageError(
          'SECRETS_NEW_KEY must hold the new key: 32 bytes as base64 (44 characters) or 64 hex digits',
        );
      return s.secrets.rotate(key);
    },
  },
  'db:migrate': {
    synopsis: '[--json]',
    description: 'Run pending migrations under the migration lock (for MIGRATE_ON_START=false deployments).',
    runOnSchema: async (db, config) => {
      const { applied, lock } = await migrateUnderLock(db.dataSource, config.MIGRATION_LOCK_TIMEOUT_SECONDS);
      const { applied: all } = await migrationStatus(db.dataSource);
      return { result: { applied, lock, total: all.length }, code: 0 };
    },
  },
  'db:status': {
    synopsis: '[--json]',
    description: 'Applied and pending migrations; exit code 3 when some are pending.',
    runOnSchema: async (db) => {
      const status = await migrationStatus(db.dataSource);
      return { result: status, code: status.pending.length > 0 ? 3 : 0 };
    },
  },
  'db:backup': {
    synopsis: '--to FILE [--json]',
    description:
      "Copy the live SQLite database to FILE (a new file) with SQLite's online backup API while the service runs: " +
      'a consistent snapshot, which a file copy under WAL is not. Restore: stop the service, put FILE at the ' +
      'DATABASE_URL path (no -wal or -shm files beside it), start. For MySQL/MariaDB it prints the mariadb-dump command.',
    runOnConfig: async (config, o) => {
      if (dialectOf(config.DATABASE_URL) !== 'sqlite') {
        throw new UsageError(
          'db:backup copies a SQLite database; DATABASE_URL names MySQL/MariaDB, which backs up with its own tools. ' +
            `A consistent dump (InnoDB, without locking the service out):\n\n  ${mariadbDumpCommand(config.DATABASE_URL)}\n\n` +
            'or a physical copy with mariabackup (see docs/operations.md, Backups).',
          2,
        );
      }
      return backupSqliteDatabase(config.DATABASE_URL, text(o, 'to'));
    },
  },
  'fingerprints:check': {
    synopsis: '--from PATH [--json]',
    description:
      'Validate a fingerprint pack (a directory in the webappanalyzer layout, technologies/ or technologies.json, ' +
      'or a technologies.json file) without loading it: JSON syntax, field types, every regex compiled under the ' +
      "engine's rules, unknown categories, implies/requires/excludes naming missing technologies, cycles of implies. " +
      'Prints the summary (technologies, categories, version) and every problem, or ok. ' +
      'Exit code 0 when valid (warnings allowed), 1 when not, 2 for a usage error.',
    usageExitCode: 2,
    runOnFiles: (o) => fingerprintsCheck(text(o, 'from', 2), o.json === true),
  },
  'fingerprints:diff': {
    synopsis: '--from PATH [--replace] [--share 0.2] [--min-sites 3] [--json]',
    description:
      'Compare a fingerprint pack with the fingerprints the service runs: the pack is validated first (a bad one is ' +
      'refused with its problems, exit code 1), laid over the current fingerprints (--replace: in their place), and ' +
      'the technologies added, removed and changed (which fields) are listed with the stored sites each touches. ' +
      'Both are then run on the stored page samples (PAGE_SAMPLES_MAX): a technology whose detections would fall or ' +
      'rise by more than --share (default 0.2) with at least --min-sites (default 3) before or after is flagged. ' +
      'Exit code 0 when compared, 1 for a bad pack, 2 for a usage error.',
    usageExitCode: 2,
    runChecked: (o) =>
      fingerprintsDiff({
        from: text(o, 'from', 2),
        replace: o.replace === true,
        json: o.json === true,
        trend: {
          share: o.share === undefined ? TREND_BREAK_DEFAULTS.share : share(o, 'share'),
          minSites: o['min-sites'] === undefined ? TREND_BREAK_DEFAULTS.minSites : whole(o, 'min-sites', 2),
        },
      }),
  },
  'fingerprints:load': {
    synopsis: '--from PATH [--replace] [--name NAME] [--json]',
    description:
      'Load a fingerprint pack into every process without a restart. It is validated completely first (as ' +
      'fingerprints:check does), as an overlay over the active set (references to its technologies resolve) or, ' +
      'with --replace, as the new base pack; a pack with any error is refused whole (exit code 1, every problem ' +
      'with file, technology and field) and the active set stays. Else it is stored in the database, the new set ' +
      'is activated and announced, and its version printed. --name (default: the last part of PATH) names it; an ' +
      'overlay of that name is replaced.',
    runWithCode: (s, o) =>
      fingerprintsLoad(s, {
        from: text(o, 'from'),
        replace: o.replace === true,
        ...(typeof o.name === 'string' ? { name: o.name } : {}),
        json: o.json === true,
      }),
  },
  'fingerprints:status': {
    synopsis: '[--json]',
    description:
      'The active fingerprint set (its version), each of its packs (name, role, version, technologies, loaded at ' +
      'and by), and earlier sets (the versions fingerprints:activate can go back to).',
    runWithCode: (s, o) => fingerprintsStatus(s, o.json === true),
  },
  'fingerprints:unload': {
    synopsis: '--name NAME [--json]',
    description:
      'Activate the set without the named overlay (or, for a base loaded with --replace, with the default base ' +
      'again), once what stays still validates.',
    runWithCode: (s, o) => fingerprintsUnload(s, { name: text(o, 'name'), json: o.json === true }),
  },
  'fingerprints:activate': {
    synopsis: '--version ID [--json]',
    description: 'Make an earlier set (fingerprints:status lists them) the active one again: a roll-back.',
    runWithCode: (s, o) => fingerprintsActivate(s, { version: text(o, 'version'), json: o.json === true }),
  },
  'vulns:import': {
    synopsis: '--file FILE [--json]',
    description:
      'Import vulnerability data: an NVD CVE API 2.0 document (a yearly feed, .json or .json.gz, streamed) or OSV ' +
      'JSON (one record, a folder or a zip of them). The whole file is checked first (a wrong schema, bad JSON or a ' +
      'truncated gzip writes nothing), then written; a stored record is replaced only by a newer `modified`. ' +
      'A progress bar on a terminal; the summary as JSON.',
    run: (s, o) => vulnsImport(s, text(o, 'file')),
  },
  'vulns:status': {
    synopsis: '[--json]',
    description:
      'Imported vulnerability data: per source the records, products, newest modified, last import.',
    run: (s) => vulnsStatus(s),
  },
  'sites:rank': {
    synopsis: '[--json]',
    description:
      'Recompute observed traffic ranks now (the worker does it every TRAFFIC_RANK_REFRESH_MINUTES).',
    run: (s) => s.trafficRanks.refreshObservedRanks(),
  },
};

/** The synopses line up two spaces after the longest command name. */
const NAME_WIDTH = Math.max(...Object.keys(COMMANDS).map((name) => name.length)) + 2;

const USAGE = `Usage: npm run --silent admin -- <command> [options]

${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(NAME_WIDTH)}${c.synopsis}`.trimEnd())
  .join('\n')}

  ${'help, --help, -h'.padEnd(NAME_WIDTH)}this text; <command> --help explains one command

Plans: demo, small, medium, large, business.`;

const commandUsage = (name: string, c: Command) =>
  `Usage: npm run --silent admin -- ${`${name} ${c.synopsis}`.trimEnd()}\n\n${c.description}`;

function text(o: Options, name: string, exitCode = 1): string {
  const value = o[name];
  if (typeof value !== 'string' || value.trim() === '')
    throw new UsageError(`--${name} is required`, exitCode);
  return value;
}

function whole(o: Options, name: string, exitCode = 1): number {
  const value = text(o, name, exitCode);
  if (!/^\d{1,15}$/.test(value)) throw new UsageError(`--${name} must be a whole number`, exitCode);
  return Number(value);
}

/** A share: a decimal number from 0 to 10 (0.2 is 20%). */
function share(o: Options, name: string): number {
  const value = text(o, name, 2);
  if (!/^\d{1,2}(\.\d{1,6})?$/.test(value) || Number(value) > 10)
    throw new UsageError(`--${name} must be a share from 0 to 10, such as 0.2 for 20%`, 2);
  return Number(value);
}

class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * sites:import streams a file of any length with bounded batches, but V8 lets a heap of collectable
 * batches grow far before a full collection (heapUsed climbed past 160 MB within 300,000 lines, and
 * peak RSS passed 460 MB; 511-641 MB at a million lines). The command therefore runs itself again
 * with a capped old space, unless the operator set one (NODE_OPTIONS or a node flag).
 */
const HEAP_CAPPED_COMMANDS = new Set(['sites:import', 'vulns:import']);
const IMPORT_HEAP_FLAG = '--max-old-space-size=128';
/** SQLite page cache of an import (SQLITE_CACHE_MB when smaller). */
const IMPORT_SQLITE_CACHE_MB = 8;

function heapCapSet(): boolean {
  const flag = /--max[-_]old[-_]space[-_]size/;
  return process.execArgv.some((arg) => flag.test(arg)) || flag.test(process.env.NODE_OPTIONS ?? '');
}

/** The same command in a child with IMPORT_HEAP_FLAG (terminal, signals and exit code passed through). */
function rerunWithHeapCap(argv: string[]): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, IMPORT_HEAP_FLAG, __filename, ...argv], {
    stdio: 'inherit',
  });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((signal) => {
    const handler = forward(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      for (const [name, handler] of handlers) process.off(name, handler);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const OPTIONS = {
  name: { type: 'string' },
  email: { type: 'string' },
  plan: { type: 'string' },
  credits: { type: 'string' },
  account: { type: 'string' },
  key: { type: 'string' },
  'api-key': { type: 'string' },
  json: { type: 'boolean' },
  file: { type: 'string' },
  format: { type: 'string' },
  limit: { type: 'string' },
  crawl: { type: 'boolean' },
  to: { type: 'string' },
  from: { type: 'string' },
  replace: { type: 'boolean' },
  share: { type: 'string' },
  'min-sites': { type: 'string' },
  'grace-hours': { type: 'string' },
  version: { type: 'string' },
} as const;

/** The command's options; an unknown or malformed one is a usage error with the command's exit code. */
function parseOptions(args: string[], usageExitCode = 1): { values: Options } {
  try {
    return parseArgs({ args, options: OPTIONS, strict: true });
  } catch (error) {
    if ((error as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS'))
      throw new UsageError(`${(error as Error).message}\n\n${USAGE}`, usageExitCode);
    throw error;
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== undefined && HEAP_CAPPED_COMMANDS.has(command) && !heapCapSet())
    return rerunWithHeapCap(argv);
  if (command === undefined || ['help', '--help', '-h'].includes(command)) {
    if (command === undefined) {
      console.error(USAGE);
      return 2;
    }
    const topic = command === 'help' && rest[0] ? COMMANDS[rest[0]] : undefined;
    console.log(topic ? commandUsage(rest[0], topic) : USAGE);
    return 0;
  }
  const chosen = COMMANDS[command];
  if (!chosen) {
    console.error(`Unknown command ${command}\n\n${USAGE}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(commandUsage(command, chosen));
    return 0;
  }
  if (chosen.runAlone) {
    console.log(chosen.runAlone());
    return 0;
  }
  const { values } = parseOptions(rest, chosen.usageExitCode);
  if (chosen.runOnFiles) {
    const { output, code } = chosen.runOnFiles(values);
    console.log(output);
    return code;
  }
  const checked = chosen.runChecked?.(values);
  if (checked && 'refused' in checked) {
    console.log(checked.refused.output);
    return checked.refused.code;
  }
  const config = loadConfig();
  logger.level = 'warn';
  if (chosen.runOnConfig) {
    const result = await chosen.runOnConfig(config, values);
    console.log(values.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
    return 0;
  }
  const db = await Database.open(
    config.DATABASE_URL,
    chosen.runOnSchema
      ? { migrate: 'skip' }
      : HEAP_CAPPED_COMMANDS.has(command)
        ? // An import writes ahead and reads little again: SQLite's page cache would only add to its RSS.
          { ...openOptions(config), sqliteCacheMb: Math.min(config.SQLITE_CACHE_MB, IMPORT_SQLITE_CACHE_MB) }
        : openOptions(config),
  );
  // stderr, not the log: stdout is the command's JSON, and the CLI logs at warn.
  if (db.createdFile)
    console.error(
      `${db.createdFile} did not exist: a new, empty SQLite database was created there (check DATABASE_URL)`,
    );
  // With REDIS_URL the commands' events (a revoked key) reach the API processes.
  const shared = connectSharedState(config);
  try {
    let result: unknown;
    let code = 0;
    if (chosen.runWithCode) {
      const services = await buildServices(config, db, shared.events, shared.redis);
      const { output, code: exitCode } = await chosen
        .runWithCode(services, values)
        .finally(() => services.fingerprints.stop());
      console.log(output);
      return exitCode;
    }
    if (chosen.runOnSchema) ({ result, code } = await chosen.runOnSchema(db, config));
    else if (checked) {
      const done = await checked.run(await buildServices(config, db, shared.events, shared.redis), config);
      // A report can pass the pipe's buffer: the process exits only once stdout has taken it all.
      await new Promise((resolve) => process.stdout.write(`${done.output}\n`, resolve));
      return done.code;
    } else result = await chosen.run!(await buildServices(config, db, shared.events, shared.redis), values);
    console.log(values.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
    return code;
  } finally {
    await shared.close();
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
    process.exit(error instanceof StartupError || error instanceof UsageError ? error.exitCode : 1);
  },
);
