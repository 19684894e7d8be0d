import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { loadConfig } from '../../../src/platform/config';
import { StartupError } from '../../../src/storage/migrator';
import { keyIdOf } from '../../../src/services/platform/secret-vault';
import { RunningService, startService } from '../../../src/service-runtime';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';
import { cleanEnv, distEntry, freePort, REPO_ROOT, spawnNode } from '../../helpers/test-process';

const run = promisify(execFile);
const KEY_1 = randomBytes(32).toString('base64');
const KEY_2 = randomBytes(32).toString('hex');

/**
 * The callback signing secret is sealed with AES-256-GCM under SECRETS_KEY: plaintext secrets from
 * before the key are encrypted at start-up, a process without the key or with another one refuses
 * to start, and the admin CLI re-encrypts everything under a new key.
 */
describe('signing secrets encrypted at rest', () => {
  let database: TestDatabase;
  let accountId: number;
  let secret: string;

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database.drop();
  });

  const start = (settings: Record<string, string> = {}) =>
    startService(
      loadConfig({
        DATABASE_URL: database.url,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        EMBEDDED_WORKER: 'false',
        ALLOW_PRIVATE_TARGETS: 'true',
        ...settings,
      }),
    );

  const storedSecret = async (service: RunningService): Promise<string> => {
    const [row] = await service.services.db.query<{ signing_secret: string }[]>(
      'SELECT signing_secret FROM accounts WHERE id = ?',
      [accountId],
    );
    return row.signing_secret;
  };

  /** The secrets the worker signs with (read the way it reads them), the replaced one too while its grace period lasts. */
  const secretsForDelivery = async (service: RunningService): Promise<(string | null)[]> => {
    const { callbacks, db } = service.services;
    const delivery = await db.transaction((m) =>
      callbacks.schedule(m, { accountId, url: 'http://127.0.0.1:9/hook', event: 'test.event', payload: {} }),
    );
    const attempt = (await callbacks.startAttempt(delivery.id))!;
    return [attempt.secret, attempt.previousSecret];
  };
  /** The secret the callback worker signs with. */
  const secretForDelivery = async (service: RunningService): Promise<string | null> =>
    (await secretsForDelivery(service))[0];

  let replaced: string;

  const admin = async (env: Record<string, string>, ...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [distEntry('src/admin/cli.js'), ...args], {
        cwd: REPO_ROOT,
        env: cleanEnv({ DATABASE_URL: database.url, LOG_LEVEL: 'warn', ...env }),
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  it('without SECRETS_KEY a secret is stored as it was (plaintext)', async () => {
    const service = await start();
    try {
      const created = await service.services.accounts.createAccount({
        name: 'Hooks',
        email: 'hooks@example.com',
        plan: 'small',
        credits: 0,
      });
      accountId = created.accountId;
      secret = (await service.services.accounts.createSigningSecret(accountId)).secret;
      expect(await storedSecret(service)).toBe(secret);
      expect(await secretForDelivery(service)).toBe(secret);
    } finally {
      await service.stop();
    }
  });

  it('a start with SECRETS_KEY encrypts the plaintext secrets; signing still uses the secret', async () => {
    const service = await start({ SECRETS_KEY: KEY_1 });
    try {
      const stored = await storedSecret(service);
      expect(stored).toMatch(/^enc:v1:[0-9a-f]{8}:/);
      expect(stored).not.toContain(secret);
      expect(await secretForDelivery(service)).toBe(secret);
      // A new secret is sealed as it is written, and so is the one it replaces (signing during its grace).
      replaced = secret;
      secret = (await service.services.accounts.createSigningSecret(accountId, 3_600_000)).secret;
      expect(await storedSecret(service)).not.toContain(secret);
      const [row] = await service.services.db.query<{ previous_signing_secret: string }[]>(
        'SELECT previous_signing_secret FROM accounts WHERE id = ?',
        [accountId],
      );
      expect(row.previous_signing_secret).toMatch(/^enc:v1:[0-9a-f]{8}:/);
      expect(row.previous_signing_secret).not.toContain(replaced);
      expect(await secretsForDelivery(service)).toEqual([secret, replaced]);
    } finally {
      await service.stop();
    }
  });

  it('refuses to start without the key or with another key, with a message saying so', async () => {
    const port = await freePort();
    const proc = spawnNode(
      distEntry('src/main.js'),
      [],
      cleanEnv({ DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
    );
    expect((await proc.exited).code).toBe(1);
    // The current secret and the one it replaced (still in its grace period).
    expect(proc.stderr()).toMatch(
      /2 callback signing secret\(s\) are stored encrypted but SECRETS_KEY is not set/,
    );

    const wrong = start({ SECRETS_KEY: KEY_2 });
    await expect(wrong).rejects.toBeInstanceOf(StartupError);
    await expect(wrong).rejects.toThrow(
      /SECRETS_KEY \(key id [0-9a-f]{8}\) is not the key the stored secrets/,
    );

    expect(() => loadConfig({ SECRETS_KEY: 'too-short' })).toThrow(/SECRETS_KEY: must be 32 bytes/);
  });

  it('admin secrets:rotate-key re-encrypts under SECRETS_NEW_KEY; only the new key starts the service', async () => {
    const missing = await admin({ SECRETS_KEY: KEY_1 }, 'secrets:rotate-key');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/SECRETS_NEW_KEY must hold the new key/);

    const rotated = await admin(
      { SECRETS_KEY: KEY_1, SECRETS_NEW_KEY: KEY_2 },
      'secrets:rotate-key',
      '--json',
    );
    expect(rotated.code).toBe(0);
    expect(JSON.parse(rotated.stdout)).toEqual({ rotated: 1, keyId: keyIdOf(Buffer.from(KEY_2, 'hex')) });

    await expect(start({ SECRETS_KEY: KEY_1 })).rejects.toThrow(/is not the key the stored secrets/);
    const service = await start({ SECRETS_KEY: KEY_2 });
    try {
      expect(await storedSecret(service)).toContain(`enc:v1:${keyIdOf(Buffer.from(KEY_2, 'hex'))}:`);
      // The replaced secret, still in its grace period, was re-encrypted with the current one.
      expect(await secretsForDelivery(service)).toEqual([secret, replaced]);
    } finally {
      await service.stop();
    }

    const generated = await admin({}, 'secrets:generate-key');
    expect(generated.code).toBe(0);
    expect(Buffer.from(generated.stdout.trim(), 'base64')).toHaveLength(32);
  });
});
