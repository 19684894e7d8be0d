import { randomBytes } from 'node:crypto';
import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TOPICS } from '../../../src/platform/event-bus';
import { FAST_SETTINGS } from '../analysis-api/analysis-test-kit';
import { eventually } from '../../helpers/eventually';
import { expectMatchesContract, fetchOpenApiDocument, OpenApiDocument } from '../../helpers/openapi-contract';
import { eventSubscribers } from '../../helpers/redis-subscribers';
import { startTestService, TestService } from '../../helpers/test-service';
import {
  contactPage,
  ChangingSite,
  GENEROUS_FETCHES,
  JQUERY,
  LODASH,
  startChangingSite,
  wordpressHome,
} from './changing-site';

interface Change {
  id: number;
  domain: string;
  technology: string;
  name: string;
  kind: 'added' | 'removed' | 'version';
  fromVersion?: string;
  toVersion?: string;
  at: number;
  fingerprintsVersion?: string;
}

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/8';

/**
 * GET /v2/changes/ and GraphQL changes / technologyChanged on SQLite and (with TEST_DATABASE_URL)
 * MariaDB: every filter against the unfiltered feed, paging, credits, bad input, keys; and the
 * subscription in a second service instance that shares only Redis with the one that analyses.
 */
describe('the change feed', () => {
  let service: TestService;
  let listener: TestService;
  let a: ChangingSite;
  let b: ChangingSite;
  let apiKey: string;
  let accountId: number;
  let contract: OpenApiDocument;
  let all: Change[];
  const clients: Client[] = [];
  const redisPrefix = `test-changes-${randomBytes(6).toString('hex')}:`;

  const services = () => service.running.services;
  const get = async (query: string, key: string | null = apiKey) => {
    // The changes family allows 5 requests a second: each request here starts a window of its own.
    service.clock.advance(1000);
    const res = await service.request(`/v2/changes/${query}`, { key: key ?? undefined });
    expectMatchesContract(contract, 'GET', `/v2/changes/${query}`, res.status, res.body, res.headers);
    return res;
  };
  const balance = () => service.balance(accountId);

  beforeAll(async () => {
    a = await startChangingSite({ '/': wordpressHome('6.4.2', JQUERY), '/contact': contactPage('5.8') });
    b = await startChangingSite({ '/': wordpressHome('6.4.2', LODASH) }, '127.0.0.2');
    const shared = {
      ...FAST_SETTINGS,
      ...GENEROUS_FETCHES,
      REDIS_URL,
      REDIS_KEY_PREFIX: redisPrefix,
      LOG_LEVEL: 'error',
    };
    service = await startTestService(shared);
    listener = await startTestService(shared);
    ({ apiKey, accountId } = await service.createAccount({ plan: 'large', credits: 1000 }));
    contract = await fetchOpenApiDocument(service.url);
    await eventSubscribers(services().redis!, 2);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await listener?.stop();
    await service?.stop();
    await a?.close();
    await b?.close();
  });

  /** A subscription on the listening instance (its own database: only Redis joins them). */
  async function subscribe(filter: Record<string, unknown>): Promise<Change[]> {
    const { apiKey: key } = await listener.createAccount({ plan: 'large', credits: 10 });
    const client = createClient({
      url: listener.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': key },
      retryAttempts: 0,
    });
    clients.push(client);
    const got: Change[] = [];
    const bus = listener.running.services.events;
    const before = bus.listenerCount(TOPICS.technologyChanged);
    client.subscribe(
      {
        query: `subscription ($filter: ChangeFilter) { technologyChanged(filter: $filter) {
          id domain technology name kind fromVersion toVersion at fingerprintsVersion } }`,
        variables: { filter },
      },
      {
        next: (value) => void got.push((value.data as { technologyChanged: Change }).technologyChanged),
        error: (error) => void got.push({ kind: 'error', name: JSON.stringify(error) } as unknown as Change),
        complete: () => undefined,
      },
    );
    await eventually(() => bus.listenerCount(TOPICS.technologyChanged) > before, 'the subscription');
    return got;
  }

  it('records the changes of real analyses, pushed to a subscriber of another instance as they commit', async () => {
    const cms = await subscribe({ categories: ['cms'], kinds: ['added', 'version'] });
    const onB = await subscribe({ domains: [b.hostname] });
    expect((await services().analyzer.crawl(a.url)).ok).toBe(true);
    expect((await services().analyzer.analyzePage(b.url)).ok).toBe(true);
    b.serve('/', wordpressHome('6.5.0'));
    expect((await services().analyzer.analyzePage(b.url)).ok).toBe(true);

    const res = await get('?limit=1000');
    expect(res.status).toBe(200);
    all = res.body.changes;
    expect(res.body.moreAfter).toBeUndefined();
    const summary = all.map((c) => `${c.domain} ${c.technology} ${c.kind}`);
    for (const expected of [
      `${a.hostname} wordpress added`,
      `${a.hostname} jquery added`,
      `${a.hostname} contact-form-7 added`,
      `${b.hostname} lodash added`,
      `${b.hostname} wordpress version`,
      `${b.hostname} lodash removed`,
    ])
      expect(summary).toContain(expected);

    const expectedOnB = all.filter((c) => c.domain === b.hostname);
    await eventually(() => onB.length >= expectedOnB.length, 'the changes of b on the other instance');
    expect(onB.map(({ name: _n, ...c }) => c)).toEqual(
      expectedOnB.map(({ name: _n, ...c }) => ({
        fromVersion: null,
        toVersion: null,
        fingerprintsVersion: null,
        ...c,
      })),
    );
    const expectedCms = all.filter((c) => c.technology === 'wordpress');
    await eventually(() => cms.length >= expectedCms.length, 'the CMS changes on the other instance');
    expect(cms.map((c) => [c.id, c.technology, c.kind])).toEqual(
      expectedCms.map((c) => [c.id, c.technology, c.kind]),
    );
  });

  it('filters by site, technology, category, kind and time, each against the whole feed', async () => {
    const cases: [string, (c: Change) => boolean][] = [
      [`domains=${b.hostname}`, (c) => c.domain === b.hostname],
      // An IP (like a registrable domain) covers every site on it, whatever the port.
      ['domains=127.0.0.2', (c) => c.domain === b.hostname],
      [`domains=${a.hostname},${b.hostname}`, () => true],
      ['technologies=jquery,lodash', (c) => ['jquery', 'lodash'].includes(c.technology)],
      ['categories=javascript-libraries', (c) => ['jquery', 'lodash'].includes(c.technology)],
      [
        'technologies=contact-form-7&categories=cms',
        (c) => ['contact-form-7', 'wordpress'].includes(c.technology),
      ],
      ['kinds=removed', (c) => c.kind === 'removed'],
      ['kinds=version,removed', (c) => c.kind !== 'added'],
      [
        `domains=${b.hostname}&kinds=added&technologies=lodash`,
        (c) => c.domain === b.hostname && c.technology === 'lodash' && c.kind === 'added',
      ],
      [`since=${all[all.length - 1].at}`, (c) => c.at >= all[all.length - 1].at],
      [`until=${all[0].at + 1}`, (c) => c.at < all[0].at + 1],
      [`since=${all[0].at + 3600}`, () => false],
    ];
    for (const [query, keep] of cases) {
      const res = await get(`?${query}&limit=1000`);
      expect([query, res.status]).toEqual([query, 200]);
      expect([query, res.body.changes]).toEqual([query, all.filter(keep)]);
    }
  });

  it('pages with moreAfter (or any change id) and charges 1 credit per 10 changes returned', async () => {
    const seen: Change[] = [];
    let after = '';
    const start = await balance();
    for (let pages = 0; pages < 50; pages++) {
      const res = await get(`?limit=2${after ? `&after=${after}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.changes.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.changes);
      if (!res.body.moreAfter) break;
      expect(res.body.moreAfter).toBe(String(res.body.changes[1].id));
      after = res.body.moreAfter;
    }
    expect(seen).toEqual(all);
    // Every page of one or two changes cost one credit.
    expect(start - (await balance())).toBe(Math.ceil(all.length / 2));

    const before = await balance();
    expect((await get(`?after=${all[2].id}`)).body.changes).toEqual(all.slice(3));
    expect(before - (await balance())).toBe(Math.ceil((all.length - 3) / 10));
    const empty = await get(`?after=${all[all.length - 1].id}`);
    expect(empty.body).toEqual({ changes: [] });
    expect(before - (await balance())).toBe(Math.ceil((all.length - 3) / 10));
  });

  it('refuses bad input with a 400 naming the parameter, charging nothing; a key is required', async () => {
    const before = await balance();
    for (const [query, parameter] of [
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=ten', 'limit'],
      ['?after=abc', 'after'],
      ['?since=-1', 'since'],
      ['?since=soon', 'since'],
      ['?until=99999999999', 'until'],
      ['?since=200&until=100', 'until'],
      ['?kinds=renamed', 'kinds'],
      ['?technologies=no-such-technology-here', 'technologies'],
      ['?technologies=Not%20A%20Slug', 'technologies'],
      ['?categories=no-such-category', 'categories'],
      ['?domains=exa%20mple.com', 'domains'],
      [`?domains=${Array.from({ length: 101 }, (_, i) => `s${i}.example.com`).join(',')}`, 'domains'],
      ['?colour=blue', 'colour'],
    ]) {
      const res = await get(query);
      expect([query, res.status]).toEqual([query, 400]);
      expect([query, JSON.stringify(res.body)]).toEqual([query, expect.stringContaining(parameter)]);
    }
    expect(await balance()).toBe(before);
    const anonymous = await get('', null);
    expect(anonymous.status).toBe(403);
  });

  it('GraphQL: changes as a cursor connection, and site(domain) with timelines and its changes', async () => {
    service.clock.advance(1000);
    const page = await service.graphql(
      apiKey,
      `query ($after: String) { changes(filter: { domains: ["127.0.0.2"] }, first: 2, after: $after) {
         edges { cursor node { id domain technology kind toVersion } } nodes { id } pageInfo { hasNextPage endCursor } } }`,
      { after: null },
    );
    expect(page.body.errors).toBeUndefined();
    const onB = all.filter((c) => c.domain === b.hostname);
    const connection = page.body.data.changes;
    expect(connection.nodes.map((n: { id: number }) => n.id)).toEqual(onB.slice(0, 2).map((c) => c.id));
    expect(connection.edges[0].cursor).toBe(String(onB[0].id));
    expect(connection.pageInfo).toEqual({ hasNextPage: onB.length > 2, endCursor: String(onB[1].id) });

    service.clock.advance(1000);
    // (A literal `first` counts in the document's cost; a variable is checked by the request schema.)
    const bad = await service.graphql(apiKey, 'query ($n: Int) { changes(first: $n) { nodes { id } } }', {
      n: 5000,
    });
    expect(bad.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    expect(bad.body.errors[0].message).toMatch(/^first must be between 1 and 1000/);

    service.clock.advance(1000);
    const site = await service.graphql(
      apiKey,
      `query ($domain: String!) { site(domain: $domain) { domain registrableDomain
         technologies { slug live version versions { version } }
         changes(first: 10, filter: { kinds: ["removed"] }) { nodes { technology kind fromVersion } } } }`,
      { domain: b.hostname },
    );
    expect(site.body.errors).toBeUndefined();
    const found = site.body.data.site;
    expect(found.domain).toBe(b.hostname);
    const techs = new Map(found.technologies.map((t: { slug: string }) => [t.slug, t]));
    expect(techs.get('wordpress')).toEqual({
      slug: 'wordpress',
      live: true,
      version: '6.5.0',
      versions: [{ version: '6.4.2' }, { version: '6.5.0' }],
    });
    expect(techs.get('lodash')).toMatchObject({ live: false });
    expect(found.changes.nodes).toEqual([{ technology: 'lodash', kind: 'removed', fromVersion: null }]);

    service.clock.advance(1000);
    const missing = await service.graphql(apiKey, '{ site(domain: "not-analysed.example") { domain } }');
    expect(missing.body).toEqual({ data: { site: null } });
  });

  it('REST: GET /v2/sites/{domain} gives the same timeline (1 credit), a site not in the index is a 404', async () => {
    const before = await balance();
    service.clock.advance(1000);
    const res = await service.request(`/v2/sites/${b.hostname}`, { key: apiKey });
    expectMatchesContract(contract, 'GET', `/v2/sites/${b.hostname}`, res.status, res.body, res.headers);
    expect(res.status).toBe(200);
    expect(res.body.domain).toBe(b.hostname);
    const wordpress = res.body.technologies.find((t: { technology: string }) => t.technology === 'wordpress');
    expect(wordpress).toMatchObject({ live: true, version: '6.5.0', evidencePaths: ['/'] });
    expect(wordpress.versions.map((v: { version: string }) => v.version)).toEqual(['6.4.2', '6.5.0']);
    expect(wordpress.removedAt).toBeUndefined();
    const lodash = res.body.technologies.find((t: { technology: string }) => t.technology === 'lodash');
    expect(lodash.live).toBe(false);
    expect(lodash.removedAt).toBeGreaterThanOrEqual(lodash.lastSeenAt);
    expect(before - (await balance())).toBe(1);
    service.clock.advance(1000);
    const missing = await service.request('/v2/sites/not-analysed.example', { key: apiKey });
    expectMatchesContract(contract, 'GET', '/v2/sites/not-analysed.example', missing.status, missing.body);
    expect(missing.status).toBe(404);
    expect(before - (await balance())).toBe(1);
  });
});
