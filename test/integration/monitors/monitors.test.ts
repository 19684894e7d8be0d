import { Client, createClient } from 'graphql-ws';
import { Webhook } from 'standardwebhooks';
import WebSocket from 'ws';
import { TOPICS } from '../../../src/platform/event-bus';
import { FreshnessService } from '../../../src/services/site-index/freshness.service';
import { MonitorService } from '../../../src/services/monitors/monitor.service';
import { CreateMonitorRequest } from '../../../src/services/monitors/monitors.contract';
import { CallbackService } from '../../../src/services/platform/callback.service';
import { newMeter } from '../../../src/services/platform/caller';
import { parseRequest } from '../../../src/services/platform/request-schema';
import { standardWebhooksSecret } from '../../../src/services/platform/webhook-signatures';
import { FAST_SETTINGS } from '../analysis-api/analysis-test-kit';
import { CallbackReceiver, ReceivedCallback, startCallbackReceiver } from '../../helpers/callback-receiver';
import { eventually } from '../../helpers/eventually';
import { jobsSettled } from '../../helpers/jobs-settled';
import { expectMatchesContract, fetchOpenApiDocument, OpenApiDocument } from '../../helpers/openapi-contract';
import { startTestService, TestService } from '../../helpers/test-service';
import {
  ChangingSite,
  GENEROUS_FETCHES,
  JQUERY,
  LODASH,
  startChangingSite,
  wordpressHome,
} from '../changes/changing-site';

interface Change {
  id: number;
  domain: string;
  technology: string;
  kind: 'added' | 'removed' | 'version';
}

interface Batch {
  event: string;
  monitorId: number;
  domain: string;
  at: number;
  changes: Change[];
}

const DAY_MS = 86_400_000;

/**
 * Monitors on SQLite and (with TEST_DATABASE_URL) MariaDB: create, list, get and delete on REST and
 * GraphQL, ownership, bad input per field, plan limits; real sites whose stack changes between
 * analyses, each matching batch called back once per monitor, site and analysis (signed, verified
 * with the standardwebhooks package) and pushed to the subscription filtered by the monitor; and
 * the scheduled re-analysis of watched sites with an injected clock, charged only when it succeeded.
 */
describe('monitors', () => {
  let service: TestService;
  let a: ChangingSite;
  let b: ChangingSite;
  let receiver: CallbackReceiver;
  let contract: OpenApiDocument;
  let apiKey: string;
  let accountId: number;
  let secret: string;
  let otherKey: string;
  const clients: Client[] = [];

  const services = () => service.running.services;
  const call = async (method: string, path: string, body?: unknown, key = apiKey) => {
    // The monitors family allows 5 requests a second: each request here starts a window of its own.
    service.clock.advance(1000);
    const res = await service.request(path, { key, method, body });
    expectMatchesContract(contract, method, path, res.status, res.body, res.headers);
    return res;
  };
  const balance = async (id = accountId) => services().credits.balance(id);

  beforeAll(async () => {
    a = await startChangingSite({ '/': wordpressHome('6.4.2', JQUERY) });
    b = await startChangingSite({ '/': wordpressHome('6.4.2', LODASH) }, '127.0.0.2');
    // The worker's own scheduler stays off (RECRAWL_PER_MINUTE=0): the test runs one on a clock it sets.
    service = await startTestService({
      ...FAST_SETTINGS,
      ...GENEROUS_FETCHES,
      LOG_LEVEL: 'error',
      RECRAWL_PER_MINUTE: '0',
      // A loaded machine may take seconds to answer; a timed-out attempt would be retried a minute on.
      CALLBACK_TIMEOUT_MS: '15000',
    });
    contract = await fetchOpenApiDocument(service.url);
    ({ apiKey, accountId } = await service.createAccount({ plan: 'large', credits: 1000 }));
    ({ apiKey: otherKey } = await service.createAccount({ plan: 'large', credits: 10 }));
    secret = (await services().accounts.createSigningSecret(accountId)).secret;
    receiver = await startCallbackReceiver({ secret });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await service?.stop();
    await receiver?.close();
    await a?.close();
    await b?.close();
  });

  it("creates, lists, gets and deletes monitors on REST and GraphQL; another account's is a 404", async () => {
    const created = await call('POST', '/v2/monitors', {
      domains: ['www.Example.com', 'shop.example.org:8080'],
      technologies: ['wordpress'],
      kinds: ['removed'],
      callbackUrl: receiver.urlFor('/crud'),
      recrawlDays: 3,
    });
    expect(created.status).toBe(200);
    const id = created.body.id as number;
    expect(created.body).toEqual({ id });
    const got = await call('GET', `/v2/monitors/${id}`);
    expect(got.body).toEqual({
      id,
      domains: ['example.com', 'shop.example.org:8080'],
      technologies: ['wordpress'],
      categories: [],
      kinds: ['removed'],
      callbackUrl: receiver.urlFor('/crud'),
      recrawlDays: 3,
      createdAt: expect.any(Number),
    });
    const gql = await service.graphql(
      apiKey,
      `mutation ($input: CreateMonitorInput!) { createMonitor(input: $input) { id domains categories recrawlDays } }`,
      { input: { categories: ['cms'], callbackUrl: receiver.urlFor('/crud') } },
    );
    expect(gql.body.errors).toBeUndefined();
    const second = gql.body.data.createMonitor;
    expect(second).toEqual({ id: expect.any(Number), domains: [], categories: ['cms'], recrawlDays: 7 });

    const list = await call('GET', '/v2/monitors/');
    expect(list.body.monitors.map((m: { id: number }) => m.id)).toEqual([id, second.id]);
    const gqlList = await service.graphql(apiKey, '{ monitors { id } monitor(id: ' + id + ') { domains } }');
    expect(gqlList.body.data).toEqual({
      monitors: [{ id }, { id: second.id }],
      monitor: { domains: ['example.com', 'shop.example.org:8080'] },
    });

    // Another account sees none of them, and cannot read or delete them.
    expect((await call('GET', '/v2/monitors/', undefined, otherKey)).body).toEqual({ monitors: [] });
    expect((await call('GET', `/v2/monitors/${id}`, undefined, otherKey)).status).toBe(404);
    expect((await call('DELETE', `/v2/monitors/${id}`, undefined, otherKey)).status).toBe(404);
    const foreign = await service.graphql(otherKey, `mutation { deleteMonitor(id: ${id}) }`);
    expect(foreign.body.errors[0].extensions.code).toBe('NOT_FOUND');

    expect((await call('DELETE', `/v2/monitors/${id}`)).body).toEqual({});
    expect((await call('GET', `/v2/monitors/${id}`)).status).toBe(404);
    expect((await call('DELETE', `/v2/monitors/${id}`)).status).toBe(404);
    const deleted = await service.graphql(apiKey, `mutation { deleteMonitor(id: ${second.id}) }`);
    expect(deleted.body.data).toEqual({ deleteMonitor: true });
    expect((await call('GET', '/v2/monitors')).body).toEqual({ monitors: [] });
    // Without a key: 403.
    expect((await service.request('/v2/monitors/')).status).toBe(403);
  });

  it('refuses bad input with a 400 naming the field (and the unknown value)', async () => {
    const valid = { technologies: ['wordpress'], callbackUrl: receiver.url };
    const cases: [Record<string, unknown>, string, RegExp?][] = [
      [{ technologies: ['wordpress'] }, 'callbackUrl'],
      [{ callbackUrl: receiver.url }, 'domains', /technologies or categories/],
      [{ ...valid, technologies: ['no-such-tech'] }, 'technologies', /no-such-tech/],
      [{ ...valid, categories: ['no-such-category'] }, 'categories', /no-such-category/],
      [{ ...valid, kinds: ['moved'] }, 'kinds'],
      [{ ...valid, domains: ['not a domain'] }, 'domains', /not a domain/],
      [{ ...valid, domains: ['http://example.com/path'] }, 'domains'],
      [{ ...valid, recrawlDays: 0 }, 'recrawlDays'],
      [{ ...valid, recrawlDays: 366 }, 'recrawlDays'],
      [{ ...valid, recrawlDays: 'weekly' }, 'recrawlDays'],
      [{ ...valid, callbackUrl: 'ftp://example.com/hook' }, 'callbackUrl'],
      [{ ...valid, callbackUrl: 'http://user:pw@example.com/hook' }, 'callbackUrl'],
      [{ ...valid, callbackUrl: `http://example.com/${'x'.repeat(2100)}` }, 'callbackUrl'],
    ];
    for (const [body, parameter, message] of cases) {
      const res = await call('POST', '/v2/monitors', body);
      expect([JSON.stringify(body).slice(0, 80), res.status]).toEqual([
        JSON.stringify(body).slice(0, 80),
        400,
      ]);
      expect(res.text).toContain(parameter);
      if (message) expect(res.text).toMatch(message);
    }
    const gql = await service.graphql(
      apiKey,
      `mutation { createMonitor(input: { technologies: ["nope"], callbackUrl: "${receiver.url}" }) { id } }`,
    );
    expect(gql.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(gql.body.errors[0].message).toMatch(/technologies.*nope/);
    expect((await call('GET', '/v2/monitors/abc')).status).toBe(400);

    // The callback URL's address is checked as every callback_url's: a private one is refused unless
    // the operator allows private targets (this test service does, for its loopback receivers).
    const guarded = new MonitorService(
      services().db,
      services().changes,
      new CallbackService(services().db, services().queue, {
        retryWindowMs: 3_600_000,
        allowPrivateTargets: false,
      }),
      services().credits,
      services().plans,
    );
    const caller = {
      principal: { accountId, keyId: 1, plan: 'large', isDemo: false },
      requestId: 'r',
      meter: newMeter(),
    };
    await expect(
      guarded.create(
        caller,
        parseRequest(CreateMonitorRequest, { ...valid, callbackUrl: 'http://127.0.0.1:9/hook' }),
      ),
    ).rejects.toMatchObject({ code: 'TARGET_FORBIDDEN', details: { parameter: 'callbackUrl' } });
    expect((await call('GET', '/v2/monitors')).body).toEqual({ monitors: [] });
  });

  it("keeps to the plan's limits on monitors and watched domains (403)", async () => {
    const { apiKey: key } = await service.createAccount({ plan: 'small', credits: 0 });
    const limits = services().plans.get('small').limits;
    const create = (body: Record<string, unknown>) =>
      call('POST', '/v2/monitors', { callbackUrl: receiver.url, ...body }, key);
    // A site named again (by this or another monitor) counts once.
    const domains = Array.from({ length: limits.watchedDomains }, (_, i) => `site-${i}.example.com`);
    expect((await create({ domains })).status).toBe(200);
    expect((await create({ domains: domains.slice(0, 10) })).status).toBe(200);
    const over = await create({ domains: ['one-more.example.com'] });
    expect(over.status).toBe(403);
    expect(over.body.message ?? over.text).toMatch(/watched domains/);
    for (let n = 2; n < limits.monitors; n++)
      expect((await create({ technologies: ['jquery'] })).status).toBe(200);
    const tooMany = await create({ technologies: ['jquery'] });
    expect(tooMany.status).toBe(403);
    expect(tooMany.text).toMatch(/allows 5 monitors/);
    expect((await call('GET', '/v2/monitors', undefined, key)).body.monitors).toHaveLength(limits.monitors);
  });

  it('calls back each batch once per monitor, site and analysis, signed, and pushes it to the subscription', async () => {
    const create = async (path: string, body: Record<string, unknown>) =>
      (await call('POST', '/v2/monitors', { callbackUrl: receiver.urlFor(path), ...body })).body.id as number;
    const monitors = {
      '/site-a': await create('/site-a', { domains: [a.hostname] }),
      '/libraries': await create('/libraries', {
        technologies: ['jquery', 'lodash'],
        kinds: ['added', 'removed'],
      }),
      '/cms-on-b': await create('/cms-on-b', { categories: ['cms'], domains: ['127.0.0.2'] }),
      '/versions': await create('/versions', { technologies: ['wordpress'], kinds: ['version'] }),
    };
    const pushed = await subscribe(monitors['/libraries']);

    // Each analysis's new changes, read from the feed, are what its batches must carry.
    const expected = new Map<string, Change[][]>(Object.keys(monitors).map((path) => [path, []]));
    const matches: Record<string, (c: Change) => boolean> = {
      '/site-a': (c) => c.domain === a.hostname,
      '/libraries': (c) => ['jquery', 'lodash'].includes(c.technology) && c.kind !== 'version',
      '/cms-on-b': (c) => c.domain === b.hostname && c.technology === 'wordpress',
      '/versions': (c) => c.technology === 'wordpress' && c.kind === 'version',
    };
    let lastId = 0;
    const analysed = async (ok: boolean) => {
      expect(ok).toBe(true);
      service.clock.advance(1000);
      const res = await service.request(`/v2/changes/?limit=1000&after=${lastId}`, { key: apiKey });
      const fresh: Change[] = res.body.changes;
      expect(fresh.length).toBeGreaterThan(0);
      lastId = fresh[fresh.length - 1].id;
      for (const [path, keep] of Object.entries(matches)) {
        const batch = fresh.filter(keep);
        if (batch.length > 0) expected.get(path)!.push(batch);
      }
    };
    await analysed((await services().analyzer.crawl(a.url)).ok);
    service.clock.advance(1000);
    await analysed((await services().analyzer.analyzePage(b.url)).ok);
    b.serve('/', wordpressHome('6.5.0'));
    service.clock.advance(1000);
    await analysed((await services().analyzer.analyzePage(b.url)).ok);
    a.serve('/', wordpressHome('6.4.3', JQUERY + LODASH));
    service.clock.advance(1000);
    await analysed((await services().analyzer.crawl(a.url)).ok);

    expect(expected.get('/site-a')).toHaveLength(2);
    expect(expected.get('/libraries')).toHaveLength(4);
    expect(expected.get('/cms-on-b')).toHaveLength(2);
    expect(expected.get('/versions')).toHaveLength(2);
    const total = [...expected.values()].reduce((n, batches) => n + batches.length, 0);

    // Wait for the arrivals themselves (a job settled is not a callback received).
    const arrived = (path: string) => receiver.received.filter((r) => r.path === path);
    for (const [path, batches] of expected)
      await eventually(() => arrived(path).length >= batches.length, `${batches.length} batches at ${path}`);
    await jobsSettled(service);
    expect(receiver.received.filter((r) => Object.keys(monitors).includes(r.path))).toHaveLength(total);

    const verifier = new Webhook(standardWebhooksSecret(secret));
    for (const [path, batches] of expected) {
      const bodies = arrived(path).map((request: ReceivedCallback) => {
        expect(request.signatureValid).toBe(true);
        expect(request.headers['service-event']).toBe('monitor.changes');
        return verifier.verify(request.body, request.headers as Record<string, string>) as Batch;
      });
      const byFirstId = (x: Batch, y: Batch) => x.changes[0].id - y.changes[0].id;
      bodies.sort(byFirstId);
      expect(bodies.map((body) => body.changes.map((c) => c.id))).toEqual(
        batches.map((batch) => batch.map((c) => c.id)),
      );
      for (const [i, body] of bodies.entries()) {
        expect(body).toMatchObject({
          event: 'monitor.changes',
          monitorId: monitors[path as keyof typeof monitors],
          domain: batches[i][0].domain,
          at: (batches[i][0] as Change & { at: number }).at,
        });
        expect(body.changes).toEqual(batches[i]);
      }
    }
    // The subscription with monitorId pushed the libraries monitor's changes, one by one.
    const libraries = expected.get('/libraries')!.flat();
    await eventually(() => pushed.length >= libraries.length, 'the pushed changes');
    expect(pushed.map((c) => c.id)).toEqual(libraries.map((c) => c.id));

    // The delivery log holds each batch once, delivered.
    const log = await services().callbacks.list(accountId, { limit: 100 });
    const monitorDeliveries = log.deliveries.filter((d) => d.event === 'monitor.changes');
    expect(monitorDeliveries).toHaveLength(total);
    expect(monitorDeliveries.every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
  });

  it("refuses a subscription to another account's monitor", async () => {
    const id = (await call('POST', '/v2/monitors', { technologies: ['jquery'], callbackUrl: receiver.url }))
      .body.id as number;
    const errors: unknown[] = [];
    const client = wsClient(otherKey);
    await new Promise<void>((resolve) =>
      client.subscribe(
        { query: `subscription { technologyChanged(monitorId: ${id}) { id } }` },
        {
          next: (value) => void errors.push(value),
          error: (error) => {
            errors.push(error);
            resolve();
          },
          complete: () => resolve(),
        },
      ),
    );
    expect(JSON.stringify(errors)).toMatch(/Monitor \d+ not found/);
  });

  it('re-analyses watched sites at least every recrawlDays, charged only when the analysis succeeded', async () => {
    const fresh = await startChangingSite({ '/': wordpressHome('6.4.2') }, '127.0.0.3');
    const broken = await startChangingSite({ '/': 'fail' }, '127.0.0.4');
    try {
      const { apiKey: key, accountId: payer } = await service.createAccount({ plan: 'large', credits: 100 });
      const id = (
        await call(
          'POST',
          '/v2/monitors',
          { domains: [fresh.hostname, broken.hostname], callbackUrl: receiver.url, recrawlDays: 2 },
          key,
        )
      ).body.id as number;
      const freshness = new FreshnessService(services().db, services().queue, {
        recrawlAfterDays: 0,
        perRun: 1000,
        canPayWatch: (account) => services().monitors.canPayRecrawl(account),
      });
      const siteJobs = async () =>
        (
          await services().db.query<{ payload: string; status: string }[]>(
            "SELECT payload, status FROM jobs WHERE kind = 'site.index' ORDER BY id",
          )
        ).filter((job) =>
          (JSON.parse(job.payload) as { monitorAccounts?: number[] }).monitorAccounts?.includes(payer),
        );
      const analysedAt = async (host: string) =>
        (await services().siteIndex.findSite(`http://${host}/`))?.lastAnalyzedAt.getTime() ?? null;

      // Due at once: both sites are scheduled for this account (its monitor asked; sites other
      // monitors of this file watch may be due too).
      const t0 = Date.now();
      const mine = (watched: string[]) =>
        watched.filter((h) => [fresh.hostname, broken.hostname].includes(h));
      expect(mine((await freshness.scheduleWatched(new Date(t0))).watched).sort()).toEqual(
        [fresh.hostname, broken.hostname].sort(),
      );
      await eventually(async () => {
        const jobs = await siteJobs();
        return jobs.length === 2 && jobs.every((job) => job.status === 'succeeded');
      }, 'both scheduled analyses');
      const first = await analysedAt(fresh.hostname);
      expect(first).not.toBeNull();
      // One successful analysis charged (5 credits); the failing site cost nothing.
      await eventually(async () => (await balance(payer)) === 95, 'the charge of the successful analysis');

      // Within recrawlDays nothing is scheduled again.
      expect((await freshness.scheduleWatched(new Date(t0 + DAY_MS))).watched).toEqual([]);
      expect((await freshness.scheduleWatched(new Date(t0 + 2 * DAY_MS - 60_000))).watched).toEqual([]);
      // Two days on, both are due again; the job of a day runs once.
      const later = new Date(t0 + 2 * DAY_MS + 60_000);
      expect((await freshness.scheduleWatched(later)).watched.sort()).toEqual(
        [fresh.hostname, broken.hostname].sort(),
      );
      await eventually(async () => {
        const jobs = await siteJobs();
        return jobs.length === 4 && jobs.every((job) => job.status === 'succeeded');
      }, 'the second scheduled analyses');
      expect(await analysedAt(fresh.hostname)).toBeGreaterThan(first!);
      await eventually(async () => (await balance(payer)) === 90, 'the second charge');
      await jobsSettled(service);
      expect(await balance(payer)).toBe(90);
      const ledger = await services().credits.ledger(payer, 10);
      expect(ledger.entries.filter((e) => e.kind === 'charge').map((e) => e.delta)).toEqual([-5, -5]);

      // A new watch of a site analysed within its recrawlDays is not analysed again (nor charged).
      const { apiKey: otherPayerKey, accountId: otherPayer } = await service.createAccount({
        plan: 'large',
        credits: 100,
      });
      await call(
        'POST',
        '/v2/monitors',
        { domains: [fresh.hostname], callbackUrl: receiver.url },
        otherPayerKey,
      );
      expect((await freshness.scheduleWatched(new Date(Date.now() + 60_000))).watched).toEqual([]);
      expect(await balance(otherPayer)).toBe(100);

      expect((await call('DELETE', `/v2/monitors/${id}`, undefined, key)).status).toBe(200);
      expect((await freshness.scheduleWatched(new Date(t0 + 3 * DAY_MS))).watched).toEqual([]);
    } finally {
      await fresh.close();
      await broken.close();
    }
  });

  function wsClient(key: string): Client {
    const client = createClient({
      url: service.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': key },
      retryAttempts: 0,
    });
    clients.push(client);
    return client;
  }

  async function subscribe(monitorId: number): Promise<Change[]> {
    const got: Change[] = [];
    const bus = services().events;
    const before = bus.listenerCount(TOPICS.technologyChanged);
    wsClient(apiKey).subscribe(
      { query: `subscription { technologyChanged(monitorId: ${monitorId}) { id domain technology kind } }` },
      {
        next: (value) => void got.push((value.data as { technologyChanged: Change }).technologyChanged),
        error: (error) =>
          void got.push({ kind: 'error', technology: JSON.stringify(error) } as unknown as Change),
        complete: () => undefined,
      },
    );
    await eventually(() => bus.listenerCount(TOPICS.technologyChanged) > before, 'the subscription');
    return got;
  }
});
