import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TOPICS } from '../../../src/platform/event-bus';
import { eventually } from '../../helpers/eventually';
import { cleanEnv, distEntry, spawnNode, SpawnedProcess } from '../../helpers/test-process';
import { ListsKit, seedSites, startListsKit, unzip } from './lists-kit';

interface Ready {
  id: string;
  status: string;
  rows: { slug: string; rows: number }[];
  totalCredits: number;
  sampleUrl: string | null;
}

/** How long to wait for what the worker process does, on a busy 2-core machine. */
const WORKER = { timeoutMs: 30_000, intervalMs: 50 };

/**
 * Lists calculated by a separate worker process (dist/src/worker-main.js, `npm run build` first)
 * while the API runs without an embedded worker: the concurrent limit while lists stay
 * Calculating, Failed after the job's attempts, Failed when a base list is deleted before the
 * calculation, Ready with a downloadable sample, and listReady pushed to the owner over graphql-ws.
 */
describe('lists with a separate worker process', () => {
  let kit: ListsKit;
  let key: string;
  let otherKey: string;
  let client: Client;
  const events: Ready[] = [];
  const workers: SpawnedProcess[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'lists-worker-'));

  beforeAll(async () => {
    kit = await startListsKit({ EMBEDDED_WORKER: 'false', LISTS_JOB_ATTEMPTS: '2' });
    ({ apiKey: key } = await kit.service.createAccount({ plan: 'business', credits: 100 }));
    ({ apiKey: otherKey } = await kit.service.createAccount({ plan: 'business', credits: 100 }));
    await seedSites(kit.service.running.services.db.manager, [
      { hostname: 'one.com', trafficRank: 1, techs: [{ slug: 'wordpress', version: '6.4' }] },
      {
        hostname: 'two.com',
        trafficRank: 2,
        techs: [{ slug: 'wordpress', version: '5.0' }, { slug: 'php' }],
      },
    ]);
    client = createClient({
      url: kit.service.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': key },
      retryAttempts: 0,
    });
    client.subscribe(
      { query: 'subscription { listReady { id status rows { slug rows } totalCredits sampleUrl } }' },
      {
        next: (value) => void events.push((value.data as { listReady: Ready }).listReady),
        error: () => undefined,
        complete: () => undefined,
      },
    );
    // Another account's subscription must not see this account's lists.
    const otherClient = createClient({
      url: kit.service.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': otherKey },
      retryAttempts: 0,
    });
    otherEvents = [];
    otherClient.subscribe(
      { query: 'subscription { listReady { id status } }' },
      { next: (v) => void otherEvents.push(v.data), error: () => undefined, complete: () => undefined },
    );
    otherDispose = () => otherClient.dispose();
    await eventually(
      () => kit.service.running.services.events.listenerCount(TOPICS.listReady) >= 2,
      'both subscriptions to be registered',
    );
  }, 60_000);
  let otherEvents: unknown[] = [];
  let otherDispose: () => Promise<void> | void = () => undefined;

  afterAll(async () => {
    for (const worker of workers) {
      worker.kill();
      await worker.exited;
    }
    await client?.dispose();
    await otherDispose();
    await kit?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  function startWorkerProcess(listsDir: string): SpawnedProcess {
    const config = kit.service.running.services.config;
    const worker = spawnNode(
      distEntry('src/worker-main.js'),
      [],
      cleanEnv({
        DATABASE_URL: config.DATABASE_URL,
        LISTS_DIR: listsDir,
        LISTS_URL_SECRET: config.LISTS_URL_SECRET!,
        LOG_LEVEL: 'info',
        JOB_POLL_INTERVAL_MS: '50',
        ALLOW_PRIVATE_TARGETS: 'true',
      }),
    );
    workers.push(worker);
    return worker;
  }

  async function stop(worker: SpawnedProcess): Promise<void> {
    worker.kill();
    await worker.exited;
  }

  const create = (body: Record<string, unknown>) => kit.call('/v2/lists', key, { method: 'POST', body });
  const status = async (id: string) => (await kit.call(`/v2/lists/${id}`, key)).body.status as string;

  it('3 lists Calculating at once, the 4th is 429; a worker that cannot write files fails them after 2 attempts', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await create({ technologies: [{ slug: 'wordpress' }] });
      expect(res.status).toBe(200);
      ids.push(res.body.id);
    }
    const fourth = await create({ technologies: [{ slug: 'php' }] });
    expect(fourth.status).toBe(429);
    expect(fourth.text).toContain('Calculating at once');
    for (const id of ids) expect(await status(id)).toBe('Calculating');

    // LISTS_DIR below a regular file: every attempt to write the ZIP files fails.
    const file = join(scratch, 'not-a-directory');
    writeFileSync(file, 'x');
    const broken = startWorkerProcess(join(file, 'lists'));
    await eventually(async () => (await Promise.all(ids.map(status))).every((s) => s === 'Failed'), {
      describe: 'Failed lists',
      ...WORKER,
      intervalMs: 250,
    });
    await stop(broken);
    const failed = (await kit.call(`/v2/lists/${ids[0]}`, key)).body;
    expect(failed).toMatchObject({ status: 'Failed', totalCredits: 0, sampleUrl: null, url: null });
    expect(failed.error).toMatch(/ENOTDIR|not a directory/i);
    await eventually(() => ids.every((id) => events.some((e) => e.id === id && e.status === 'Failed')), {
      describe: 'Failed events',
      ...WORKER,
    });
    const finalize = await kit.call(`/v2/lists/${ids[0]}`, key, {
      method: 'POST',
      body: { spendCredits: 0 },
    });
    expect(finalize.status).toBe(409);
  });

  it('a separate worker makes a list Ready: listReady reaches the owner only, the sample downloads', async () => {
    const dir = kit.service.running.services.config.LISTS_DIR;
    const res = await create({ technologies: [{ slug: 'wordpress' }, { slug: 'php' }] });
    const worker = startWorkerProcess(dir);
    await eventually(() => events.some((e) => e.id === res.body.id), {
      describe: 'the listReady event',
      ...WORKER,
    });
    // The other account hears of its own lists: once it has heard of one made after this one, it
    // would have heard of this one too.
    const marker = await kit.call('/v2/lists', otherKey, {
      method: 'POST',
      body: { technologies: [{ slug: 'php' }] },
    });
    expect(marker.status).toBe(200);
    await eventually(() => JSON.stringify(otherEvents).includes(marker.body.id), {
      describe: "the other account's own listReady event",
      ...WORKER,
    });
    await stop(worker);
    const event = events.find((e) => e.id === res.body.id)!;
    expect(event).toEqual({
      id: res.body.id,
      status: 'Ready',
      rows: [
        { slug: 'wordpress', rows: 2 },
        { slug: 'php', rows: 1 },
      ],
      totalCredits: 2,
      sampleUrl: expect.stringContaining(`/v2/lists/${res.body.id}/files/sample.zip?`),
    });
    const zip = await kit.download(event.sampleUrl!);
    expect(zip.status).toBe(200);
    expect([...(await unzip(zip.body)).keys()].sort()).toEqual(['php.csv', 'wordpress.csv']);
    expect(JSON.stringify(otherEvents)).not.toContain(res.body.id);

    // A list whose base list is deleted before its calculation runs is Failed, and says why.
    const child = await create({ technologies: [{ slug: 'php' }], baseListId: res.body.id });
    expect(child.status).toBe(200);
    expect((await kit.call(`/v2/lists/${res.body.id}`, key, { method: 'DELETE' })).status).toBe(200);
    const again = startWorkerProcess(dir);
    await eventually(async () => (await status(child.body.id)) === 'Failed', {
      describe: 'the child list to fail',
      ...WORKER,
      intervalMs: 250,
    });
    await stop(again);
    expect((await kit.call(`/v2/lists/${child.body.id}`, key)).body.error).toContain('baseListId');
  });
});
