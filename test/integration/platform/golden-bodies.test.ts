import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { CallbackReceiver, startCallbackReceiver } from '../../helpers/callback-receiver';
import { eventually } from '../../helpers/eventually';
import { startLookupKit, LookupKit } from '../lookup-v2/lookup-v2-kit';
import { seedSites, SeedSite } from '../lists/lists-kit';
import type { HttpResult } from '../../helpers/test-service';

/**
 * The published REST answers, byte for byte, for one fixed set of stored data and requests: every
 * route of the contract, its error bodies, the credit headers, a callback body and the OpenAPI
 * document. The golden files under test/golden/ are what the service answered before a change; a
 * restructuring must leave them as they are, and a deliberate change of the published interface
 * shows up as a diff of these files (rewrite them with UPDATE_GOLDEN=1 and review the diff).
 *
 * Only what differs from run to run is normalised: ports, times, ids, request ids and signatures.
 * Everything else (field order, absent fields, number and string forms) is compared exactly, on
 * SQLite and on MariaDB against the same files.
 */
const GOLDEN_DIR = join(__dirname, '..', '..', 'golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

const SITES: SeedSite[] = [
  {
    hostname: 'alpha.com',
    languages: ['en'],
    keywords: ['robots'],
    trafficRank: 12,
    hits: 7,
    industry: 'Robotics',
    companySize: '11-50',
    country: 'DE',
    setsMask: 0xffff,
    enrichment: {
      meta: { title: 'Alpha', description: 'Alpha robots', responsive: true },
      company: { companyName: 'Alpha GmbH', companyFounded: 1999, locations: ['Berlin, Berlin, Germany'] },
      email: { email: ['info@alpha.com'] },
      social: { twitter: ['alpha'], github: ['alpha-robots'] },
      phone: { phone: ['+493012345678'] },
    },
    techs: [{ slug: 'wordpress', version: '6.4.2' }, { slug: 'jquery', version: '3.6.0' }, { slug: 'nginx' }],
  },
  {
    hostname: 'beta.de',
    languages: ['de'],
    trafficRank: 200,
    techs: [
      { slug: 'wordpress', version: '5.9' },
      { slug: 'php', version: '8.1' },
    ],
  },
  { hostname: 'gamma.fr', languages: ['fr'], trafficRank: 300, techs: [{ slug: 'wordpress' }] },
  { hostname: 'shop.delta.com', languages: ['en'], techs: [{ slug: 'jquery', version: '1.12.4' }] },
];

interface Recorded {
  request: string;
  status: number;
  credits?: string;
  cache?: string;
  body: string;
}

/** Replaces what changes from run to run; nothing else. */
function normalise(text: string): string {
  return text
    .replace(/(127\.0\.0\.1|localhost):\d+/g, '$1:PORT')
    .replace(/"requestId":"[^"]*"/g, '"requestId":"RID"')
    .replace(/\b(lst|ds)_[0-9a-f]{24}\b/g, '$1_ID')
    .replace(/expires=\d+/g, 'expires=T')
    .replace(/signature=[0-9a-f]+/g, 'signature=SIG')
    .replace(/\b1[789]\d{8}\b/g, 'T')
    .replace(/"monthYear":"\d\d-\d{4}"/g, '"monthYear":"MM-YYYY"');
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function compareWithGolden(name: string, actual: string): void {
  const file = join(GOLDEN_DIR, name);
  if (UPDATE || !existsSync(file)) {
    if (!UPDATE) throw new Error(`${file} is missing: run with UPDATE_GOLDEN=1 to write it`);
    mkdirSync(GOLDEN_DIR, { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

describe('published REST answers (golden)', () => {
  let kit: LookupKit;
  let receiver: CallbackReceiver;
  let business: string;
  let small: string;
  const recorded: Recorded[] = [];

  const listsDir = mkdtempSync(join(tmpdir(), 'golden-lists-'));

  beforeAll(async () => {
    receiver = await startCallbackReceiver();
    kit = await startLookupKit({
      LISTS_DIR: listsDir,
      LISTS_URL_SECRET: 'golden-secret-0123456789',
      DATASET_PRICE_PER_RECORD: '0.25',
      DATASET_CURRENCY: 'EUR',
    });
    // The worker's first rank refresh would otherwise race with the requests below.
    await kit.service.running.worker!.firstRuns;
    await seedSites(kit.service.running.services.db.manager, SITES);
    ({ apiKey: business } = await kit.service.createAccount({ plan: 'business', credits: 1000 }));
    ({ apiKey: small } = await kit.service.createAccount({ plan: 'small', credits: 5 }));
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
    await receiver?.close();
    rmSync(listsDir, { recursive: true, force: true });
  });

  /** One request, recorded with its status, credit headers and normalised body. */
  async function record(
    label: string,
    path: string,
    init: { key?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {},
    options: { hashBody?: boolean } = {},
  ): Promise<HttpResult> {
    const res = await kit.service.request(path, init);
    const spent = res.headers.get('service-credits-spent');
    const remaining = res.headers.get('service-credits-remaining');
    const cache = res.headers.get('cache-control');
    recorded.push({
      request: `${label}: ${init.method ?? 'GET'} ${normalise(decodeURIComponent(path))}`,
      status: res.status,
      ...(spent !== null ? { credits: `${spent} spent, ${remaining} remaining` } : {}),
      ...(cache !== null ? { cache } : {}),
      body: options.hashBody
        ? `sha256 ${sha256(res.text)} (${res.text.length} characters)`
        : normalise(res.text),
    });
    return res;
  }

  /** Moves the rate limits' clock past the per-second windows between two calls of one family. */
  const nextSecond = () => kit.service.clock.advance(1000);

  it('answers every route as before', async () => {
    const company = kit.companyUrl.replace(/\/$/, '');
    const enc = encodeURIComponent;

    // Analysis: the company site (enriched, every set), the WordPress-like test site.
    await record('live v2, one page, every set', `/live/v2/?urls=${enc(company)}&recursive=false&sets=all`, {
      key: business,
    });
    // Observed ranks are refreshed by the worker on its own schedule: once now, so every run sees one.
    await kit.service.running.services.trafficRanks.refreshObservedRanks();
    await record('analyze v1', `/analyze/v1/?url=${enc(kit.sites.url('/'))}`, { key: business });
    nextSecond();
    await record('analyze v1, unreachable', '/analyze/v1/?url=http%3A%2F%2F127.0.0.1%3A9%2F', {
      key: business,
    });
    await record(
      'crawl v2, accepted',
      `/crawl/v2/?urls=${enc(kit.sites.url('/about/'))}&callback_url=${enc(receiver.urlFor('/crawl-v2'))}`,
      { key: business },
    );
    await record(
      'crawl v1, accepted',
      `/crawl/v1/?url=${enc(kit.sites.url('/contact/'))}&callback_url=${enc(receiver.urlFor('/crawl-v1'))}`,
      { key: business },
    );

    // Stored lookups.
    await record('lookup v1, seeded', '/lookup/v1/?url=alpha.com', { key: business });
    await record('lookup v1, analysed', `/lookup/v1/?url=${enc(company)}`, { key: business });
    await record('lookup v1, denoise=false', '/lookup/v1/?url=beta.de&denoise=false', { key: business });
    await record('lookup v1, unknown', '/lookup/v1/?url=unknown.example', { key: business });
    await record('lookup v2, usual', '/v2/lookup/?urls=alpha.com,beta.de', { key: business });
    await record('lookup v2, every set', '/v2/lookup/?urls=alpha.com&sets=all', { key: business });
    await record('lookup v2, months', '/v2/lookup/?urls=alpha.com&squash=false&sets=meta', { key: business });
    await record('lookup v2, analysed site', `/v2/lookup/?urls=${enc(company)}&sets=all`, { key: business });
    await record('lookup v2, analysed months', `/v2/lookup/?urls=${enc(company)}&squash=false`, {
      key: business,
    });
    await record('lookup v2, unknown', '/v2/lookup/?urls=unknown.example&recursive=false', {
      key: business,
    });

    // Account, usage.
    await record('credits', '/v2/credits/balance/', { key: business });
    for (const path of ['/lookup/v1/usage', '/v2/lookup/usage', '/analyze/v1/usage', '/v2/lists/usage']) {
      await record('usage', path, { key: business });
    }

    // Email verification, subdomains.
    await record('verify, syntax', '/v2/verify/?email=not-an-address', { key: business });
    nextSecond();
    await record('verify, accepted', '/v2/verify/?email=info%40acme-robotics.de', { key: business });
    await record('subdomains', '/v2/subdomains/?domains=delta.com,alpha.com&limit=10', { key: business });

    // The public catalogue.
    const technologies = await record('catalogue', '/v2/technologies/', {}, { hashBody: true });
    await record('catalogue', '/v2/technologies/wordpress/');
    await record('catalogue', '/v2/categories/', {}, { hashBody: true });
    await record('catalogue', '/v2/categories/cms/');
    await record('catalogue, revalidated', '/v2/technologies/', {
      headers: { 'if-none-match': technologies.headers.get('etag') ?? '' },
    });
    await record('catalogue, unknown', '/v2/categories/no-such-category/');

    // Lists: create, the full and summary forms, finalize, delete.
    const created = await record('lists, create', '/v2/lists/', {
      key: business,
      method: 'POST',
      body: { technologies: [{ slug: 'wordpress', version: '5', operator: '>=' }], sets: ['email', 'meta'] },
    });
    const id = created.body.id as string;
    const list = await eventually(
      async () => {
        nextSecond();
        const res = await kit.service.request(`/v2/lists/${id}`, { key: business });
        return res.status === 200 && res.body.status !== 'Calculating' && res;
      },
      { describe: 'the list to be calculated', intervalMs: 100 },
    );
    nextSecond();
    await record('lists, one', `/v2/lists/${id}/`, { key: business });
    nextSecond();
    await record('lists, all', '/v2/lists/', { key: business });
    nextSecond();
    await record('lists, finalize', `/v2/lists/${id}`, {
      key: business,
      method: 'POST',
      body: { spendCredits: list.body.totalCredits },
    });
    nextSecond();
    await record('lists, delete', `/v2/lists/${id}/`, { key: business, method: 'DELETE' });

    // Datasets: the quote and its callback body.
    const quoted = await record('dataset, quote', '/dataset/v1/', {
      key: business,
      method: 'POST',
      body: { technologies: ['WordPress'], callback_url: receiver.urlFor('/dataset') },
    });
    expect(quoted.status).toBe(202);
    // The callbacks' bodies (the crawls were accepted at the start).
    const crawled = await receiver.waitFor(3, 60_000);
    for (const path of ['/dataset', '/crawl-v1', '/crawl-v2']) {
      const callback = crawled.find((r) => r.path === path);
      recorded.push({ request: `callback ${path}`, status: 0, body: normalise(callback?.body ?? '') });
    }

    // Errors.
    nextSecond();
    await record('error, bound', '/v2/lookup/?urls=alpha.com&min_age=12', { key: business });
    await record('error, unknown parameter', '/lookup/v1/?url=alpha.com&colour=red', { key: business });
    await record('error, missing', '/analyze/v1/', { key: business });
    await record('error, no key', '/v2/credits/balance/');
    await record('error, bad key', '/v2/credits/balance/', { key: 'tis_not-a-key' });
    await record('error, plan', '/v2/verify/?email=info%40acme-robotics.de', { key: small });
    await record('error, method', '/v2/credits/balance/', { key: business, method: 'DELETE' });
    await record('error, path', '/v2/nothing-here/', { key: business });
    await record('error, body', '/v2/lists/', {
      key: business,
      method: 'POST',
      body: '{"technologies": [',
    });
    await record('error, body field', '/v2/lists/', {
      key: business,
      method: 'POST',
      body: { technologies: [{ slug: 7 }] },
    });

    compareWithGolden('rest-bodies.json', `${JSON.stringify(recorded, null, 2)}\n`);
  }, 180_000);

  it('serves the OpenAPI document as before', async () => {
    const res = await kit.service.request('/openapi/v2-public.yaml');
    expect(res.status).toBe(200);
    compareWithGolden('openapi.yaml', res.text);
  });
});
