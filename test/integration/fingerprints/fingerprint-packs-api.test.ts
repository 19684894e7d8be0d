import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../helpers/eventually';
import { startTestService, type TestService } from '../../helpers/test-service';

const STATUS = `{ fingerprintPacks {
  version stored activatedBy
  packs { position name role version technologies loadedAt loadedBy }
  history { version activatedBy }
  process { version lastError }
} }`;
const LOAD = `mutation ($path: String!, $replace: Boolean, $name: String) {
  loadFingerprintPack(path: $path, replace: $replace, name: $name) {
    version previousVersion pack { name role version technologies } warnings { file technology field message }
  }
}`;
const UNLOAD = `mutation ($name: String!) { unloadFingerprintPack(name: $name) { version previousVersion } }`;
const ACTIVATE = `mutation ($version: String!) { activateFingerprints(version: $version) { version previousVersion } }`;

/**
 * The operator GraphQL of fingerprint packs over HTTP on one process: a pack loaded from
 * FINGERPRINT_PACKS_DIR is detected by the same process's analyses once it has switched; callers
 * that are not operators, paths outside the folder and bad packs are refused; activate goes back.
 */
describe('fingerprint packs over GraphQL (operators)', () => {
  let service: TestService;
  let packsDir: string;
  let outside: string;
  let site: Server;
  let siteUrl: string;
  let operatorKey: string;
  let customerKey: string;

  const pack = (name: string, technologies: unknown): void => {
    const root = join(packsDir, name);
    mkdirSync(join(root, 'technologies'), { recursive: true });
    writeFileSync(join(root, 'technologies', 'a.json'), JSON.stringify(technologies));
    writeFileSync(join(root, 'categories.json'), '{}');
  };

  const status = async () => {
    const result = await service.graphql(operatorKey, STATUS);
    expect(result.body.errors).toBeUndefined();
    return result.body.data.fingerprintPacks;
  };

  /** The process switches after the mutation answers (the compile runs in the background). */
  const switchedTo = (version: string) =>
    eventually(async () => (await status()).process.version === version, {
      describe: `the API process to switch to ${version}`,
      timeoutMs: 60_000,
    });

  const detected = async (): Promise<string[]> => {
    const result = await service.request(`/analyze/v1/?${new URLSearchParams({ url: siteUrl })}`, {
      key: operatorKey,
    });
    expect(result.status).toBe(200);
    return (result.body.applications as { name: string }[]).map((application) => application.name);
  };

  beforeAll(async () => {
    packsDir = mkdtempSync(join(tmpdir(), 'packs-api-'));
    outside = mkdtempSync(join(tmpdir(), 'packs-outside-'));
    pack('acme', {
      AcmePack: { cats: [1], html: ['acme-pack-marker'], implies: ['PHP'], website: 'https://acme.test' },
    });
    pack('beta', { BetaPack: { cats: [1], html: ['beta-pack-marker'], website: 'https://beta.test' } });
    pack('bad', {
      BadPack: { cats: [1], html: ['(unclosed'], implies: ['NoSuchTechnology'], website: 'https://bad.test' },
    });
    mkdirSync(join(outside, 'evil', 'technologies'), { recursive: true });
    writeFileSync(join(outside, 'evil', 'technologies', 'a.json'), '{}');
    symlinkSync(join(outside, 'evil'), join(packsDir, 'link-out'));

    site = createServer((request, response) => {
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><body><div class="acme-pack-marker beta-pack-marker">Hi</div></body></html>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;

    service = await startTestService({
      OPERATOR_ACCOUNT_IDS: '1',
      FINGERPRINT_PACKS_DIR: packsDir,
      // The switch follows the mutation's announcement, not a poll.
      FINGERPRINTS_POLL_SECONDS: '0',
    });
    const operator = await service.createAccount({ plan: 'business', credits: 1000 });
    expect(operator.accountId).toBe(1);
    operatorKey = operator.apiKey;
    customerKey = (await service.createAccount({ plan: 'business' })).apiKey;
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    site?.closeAllConnections();
    await new Promise((resolve) => site?.close(resolve));
    rmSync(packsDir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('loads a pack from FINGERPRINT_PACKS_DIR, and the same process then detects its technology', async () => {
    const before = await status();
    expect(before.stored).toBe(false);
    expect(before.packs[0]).toMatchObject({ position: 0, role: 'base', loadedAt: null });
    expect(await detected()).not.toContain('AcmePack');

    const result = await service.graphql(operatorKey, LOAD, { path: 'acme' });
    expect(result.body.errors).toBeUndefined();
    const loaded = result.body.data.loadFingerprintPack;
    expect(loaded).toMatchObject({
      previousVersion: before.version,
      pack: { name: 'acme', role: 'overlay', technologies: 1 },
    });
    expect(loaded.version).toMatch(/^fp-[0-9a-f]{12}$/);
    await switchedTo(loaded.version);

    const names = await detected();
    expect(names).toContain('AcmePack');
    expect(names).toContain('PHP');
    const after = await status();
    expect(after).toMatchObject({ version: loaded.version, stored: true, activatedBy: 'account:1' });
    expect(after.packs.at(-1)).toMatchObject({ name: 'acme', role: 'overlay', loadedBy: 'account:1' });
    expect(typeof after.packs.at(-1).loadedAt).toBe('number');
  });

  it('refuses callers that are not operators, naming the setting, and changes nothing', async () => {
    const { version } = await status();
    for (const [query, variables] of [
      [STATUS, {}],
      [LOAD, { path: 'beta' }],
      [UNLOAD, { name: 'acme' }],
      [ACTIVATE, { version }],
    ] as const) {
      const result = await service.graphql(customerKey, query, variables);
      expect(result.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(result.body.errors[0].message).toContain('OPERATOR_ACCOUNT_IDS');
    }
    expect((await status()).version).toBe(version);
  });

  it.each([['../outside'], ['/etc'], ['link-out'], ['missing'], ['.']])(
    'refuses the path %s (outside FINGERPRINT_PACKS_DIR or absent) with a 400 naming path',
    async (path) => {
      const { version } = await status();
      const result = await service.graphql(operatorKey, LOAD, { path });
      expect(result.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: 'path' });
      expect(result.body.errors[0].message).toContain('path');
      expect((await status()).version).toBe(version);
    },
  );

  it('refuses a bad pack whole, listing every problem with its file, technology and field', async () => {
    const { version } = await status();
    const result = await service.graphql(operatorKey, LOAD, { path: 'bad' });
    const [error] = result.body.errors;
    expect(error.extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: 'path' });
    expect(error.message).toContain('BadPack');
    const problems = error.extensions.problems as Record<string, string>[];
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          severity: 'error',
          file: 'technologies/a.json',
          technology: 'BadPack',
          field: 'html[0]',
        }),
        expect.objectContaining({
          severity: 'error',
          file: 'technologies/a.json',
          technology: 'BadPack',
          field: 'implies[0]',
        }),
      ]),
    );
    expect((await status()).version).toBe(version);
  });

  it('answers 400 naming the argument for a bad name or version', async () => {
    const badName = await service.graphql(operatorKey, LOAD, { path: 'beta', name: '../x' });
    expect(badName.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: 'name' });
    const badVersion = await service.graphql(operatorKey, ACTIVATE, { version: 'latest' });
    expect(badVersion.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: 'version' });
    const unknown = await service.graphql(operatorKey, ACTIVATE, { version: 'fp-000000000000' });
    expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('activateFingerprints goes back to an earlier set; unload removes a pack', async () => {
    const withAcme = (await status()).version;
    const loaded = await service.graphql(operatorKey, LOAD, { path: 'beta' });
    expect(loaded.body.errors).toBeUndefined();
    const withBeta = loaded.body.data.loadFingerprintPack.version;
    await switchedTo(withBeta);
    expect(await detected()).toEqual(expect.arrayContaining(['AcmePack', 'BetaPack']));

    const back = await service.graphql(operatorKey, ACTIVATE, { version: withAcme });
    expect(back.body.errors).toBeUndefined();
    expect(back.body.data.activateFingerprints).toEqual({ version: withAcme, previousVersion: withBeta });
    await switchedTo(withAcme);
    const names = await detected();
    expect(names).toContain('AcmePack');
    expect(names).not.toContain('BetaPack');
    expect((await status()).history.map((entry: { version: string }) => entry.version)).toEqual(
      expect.arrayContaining([withAcme, withBeta]),
    );

    const unloaded = await service.graphql(operatorKey, UNLOAD, { name: 'acme' });
    expect(unloaded.body.errors).toBeUndefined();
    await switchedTo(unloaded.body.data.unloadFingerprintPack.version);
    expect(await detected()).not.toContain('AcmePack');
  });
});
