import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { LeadListEntity } from '../../../src/storage/entities';
import { JobEntity } from '../../../src/storage/entities/job.entity';
import { startCallbackReceiver } from '../../helpers/callback-receiver';
import { eventually } from '../../helpers/eventually';
import { startTestSites } from '../../helpers/test-sites';
import { ListsKit, parseCsv, rankedSites, SeedSite, seedSites, startListsKit, unzip } from './lists-kit';

/**
 * Lead lists end to end over a seeded index (SQLite, and MariaDB with TEST_DATABASE_URL): every
 * filter and its boundaries, bad values (400 naming the field), Ready/Insufficient with callback,
 * finalize (wrong, insufficient, exact), signed downloads checked column by column, limits, exclude
 * and base lists, DELETE, another account's list.
 */
const JQ: SeedSite[] = rankedSites(10, 'jquery', '3.6.0');

const SITES: SeedSite[] = [
  {
    hostname: 'alpha.com',
    country: 'US',
    languages: ['en'],
    keywords: ['shoes', 'running'],
    industry: 'Retail',
    companySize: '11-50',
    trafficRank: 10,
    setsMask: 0b1001, // meta + email
    enrichment: {
      meta: { title: 'Alpha, "the" shoe shop', responsive: true },
      email: { email: ['info@alpha.com', 'sales@alpha.com'] },
    },
    techs: [
      { slug: 'wordpress', version: '6.4.2' },
      { slug: 'php', version: '8.1' },
    ],
  },
  {
    hostname: 'shop.alpha.com',
    scheme: 'http',
    country: 'US',
    languages: ['en-us'],
    trafficRank: 50,
    techs: [
      { slug: 'wordpress', version: '6.1' },
      { slug: 'woocommerce', version: '8.0' },
    ],
  },
  {
    hostname: 'beta.de',
    country: 'DE',
    languages: ['de', 'en'],
    keywords: ['maschinen'],
    industry: 'Manufacturing',
    companySize: '1001-5000',
    trafficRank: 200,
    setsMask: 0b1,
    techs: [{ slug: 'wordpress', version: '5.9', rootPath: false }],
  },
  {
    hostname: 'gamma.fr',
    country: 'FR',
    languages: ['fr'],
    keywords: ['shoes'],
    // No traffic: no imported rank and no recorded page view (its observed rank means nothing).
    hits: 0,
    firstSeenMonthsAgo: 1,
    techs: [{ slug: 'wordpress', version: '4.9.1' }],
  },
  {
    hostname: 'delta.com',
    country: 'US',
    languages: ['en'],
    trafficRank: 500,
    techs: [
      { slug: 'wordpress', version: '4.10' },
      { slug: 'php', version: '7.4' },
    ],
  },
  {
    hostname: 'old.org',
    country: 'US',
    languages: ['en'],
    trafficRank: 30,
    techs: [{ slug: 'wordpress', version: '6.0', monthsAgo: 5 }],
  },
  {
    hostname: 'epsilon.io',
    country: 'GB',
    languages: ['en'],
    trafficRank: 5,
    hits: 0,
    rankSource: 'observed',
    techs: [{ slug: 'shopify' }, { slug: 'jquery', version: '1.12.4' }],
  },
  ...JQ,
];

describe('/v2/lists', () => {
  let kit: ListsKit;
  let key: string;
  let accountId: number;
  let other: string;
  let keys: string[] = [];
  let made = 0;

  beforeAll(async () => {
    kit = await startListsKit();
    ({ apiKey: key, accountId } = await kit.service.createAccount({ plan: 'business', credits: 100 }));
    ({ apiKey: other } = await kit.service.createAccount({ plan: 'business', credits: 100 }));
    keys = [];
    for (let i = 0; i < 4; i++)
      keys.push((await kit.service.createAccount({ plan: 'business', credits: 0 })).apiKey);
    await seedSites(kit.service.running.services.db.manager, SITES);
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
  });

  /** Filter lists spread over accounts, under the daily limit of each. */
  const filterKey = () => keys[Math.floor(made++ / 20) % keys.length];

  async function hosts(body: Record<string, unknown>, slug?: string): Promise<string[]> {
    const k = filterKey();
    const list = await kit.make(k, body);
    if (list.status !== 'Ready') return [];
    const zip = await kit.download(list.sampleUrl);
    expect(zip.status).toBe(200);
    const files = await unzip(zip.body);
    const all = new Set<string>();
    for (const [name, text] of files) {
      if (slug && name !== `${slug}.csv`) continue;
      for (const row of parseCsv(text)) all.add(row.hostname);
    }
    return [...all].sort();
  }
  const wp = (extra: Record<string, unknown> = {}) =>
    hosts({ technologies: [{ slug: 'wordpress' }], ...extra });

  it('creates a list: Calculating, then Ready with rows, setRows, totalCredits and a sample', async () => {
    const created = await kit.call('/v2/lists', key, {
      method: 'POST',
      body: { technologies: [{ slug: 'wordpress' }, { slug: 'php' }], sets: ['meta', 'email', 'events'] },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(/^lst_[0-9a-f]{24}$/), status: 'Calculating' });
    const list = await kit.settle(created.body.id, key);
    expect(list.status).toBe('Ready');
    expect(list.rows).toEqual({ wordpress: 5, php: 2 });
    expect(list.websites).toBe(5);
    expect(list.totalCredits).toBe(5);
    expect(list.setRows).toEqual({ meta: 2, email: 1, events: 0 });
    expect(list.url).toBeNull();
    expect(list.technologies[0]).toEqual({
      slug: 'wordpress',
      name: 'WordPress',
      categories: expect.arrayContaining([{ slug: 'cms', name: 'CMS' }]),
      operator: '=',
      version: null,
    });
    expect(list).toMatchObject({
      maxAge: 3,
      minAge: 0,
      subdomains: 'include',
      format: 'csv',
      matchTechnologies: 'or',
    });
    const files = await unzip((await kit.download(list.sampleUrl)).body);
    expect([...files.keys()].sort()).toEqual(['php.csv', 'wordpress.csv']);
    const rows = parseCsv(files.get('wordpress.csv')!);
    const alpha = rows.find((r) => r.hostname === 'alpha.com')!;
    expect(alpha).toMatchObject({
      url: 'https://alpha.com/',
      domain: 'alpha.com',
      tld: '.com',
      subdomain: 'false',
      technology: 'wordpress',
      version: '6.4.2',
      trafficRank: '10',
      country: 'US',
      language: 'en',
      languages: 'en',
      industry: 'Retail',
      companySize: '11-50',
      title: 'Alpha, "the" shoe shop',
      responsive: 'true',
      email: 'info@alpha.com; sales@alpha.com',
    });
    expect(Object.keys(alpha).slice(0, 3)).toEqual(['url', 'hostname', 'domain']);
    expect(Object.keys(alpha)).toEqual(
      expect.arrayContaining(['createdAt', 'updatedAt', 'crawlAttemptedAt']),
    );
    const shop = rows.find((r) => r.hostname === 'shop.alpha.com')!;
    // The scheme the site answered on; alpha.com has none recorded and stays https.
    expect(shop.url).toBe('http://shop.alpha.com/');
    expect(shop.title).toBe('');
    expect(Number(shop.updatedAt)).toBeGreaterThan(1_700_000_000);
    expect(new Date(alpha.lastDetected).getTime()).toBeGreaterThan(0);
  });

  it('filters: versions with operators on the sortable key', async () => {
    expect(await hosts({ technologies: [{ slug: 'wordpress', version: '6', operator: '=' }] })).toEqual([
      'alpha.com',
      'shop.alpha.com',
    ]);
    expect(await hosts({ technologies: [{ slug: 'wordpress', version: '4.9', operator: '<=' }] })).toEqual([
      'gamma.fr',
    ]);
    expect(await hosts({ technologies: [{ slug: 'wordpress', version: '4.10', operator: '>=' }] })).toEqual([
      'alpha.com',
      'beta.de',
      'delta.com',
      'shop.alpha.com',
    ]);
    expect(await hosts({ technologies: [{ slug: 'wordpress', version: '6.4.2' }] })).toEqual(['alpha.com']);
  });

  it('takes the version operator over GraphQL as the same text REST takes', async () => {
    const k = filterKey();
    const created = await kit.service.graphql(
      k,
      'mutation ($input: ListCreateInput!) { createList(input: $input) { id status } }',
      { input: { technologies: [{ slug: 'wordpress', version: '4.9', operator: '<=' }] } },
    );
    expect(created.body.errors).toBeUndefined();
    const list = await kit.settle(created.body.data.createList.id, k);
    expect(list.rows).toEqual({ wordpress: 1 });
    const refused = await kit.service.graphql(
      k,
      'mutation ($input: ListCreateInput!) { createList(input: $input) { id } }',
      { input: { technologies: [{ slug: 'wordpress', version: '4.9', operator: '<' }] } },
    );
    expect(refused.body.errors[0].message).toMatch(/operator must be one of =, >=, <=/);
  });

  it('filters: keywords (with not), languages (region form), countries and matchCountryLanguage', async () => {
    expect(await wp({ keywords: ['shoes'] })).toEqual(['alpha.com', 'gamma.fr']);
    expect(await wp({ keywords: ['shoes', 'not running'] })).toEqual(['gamma.fr']);
    expect(await wp({ languages: ['en'] })).toEqual(['alpha.com', 'beta.de', 'delta.com', 'shop.alpha.com']);
    expect(await wp({ languages: ['en-us'] })).toEqual(['shop.alpha.com']);
    expect(await wp({ countries: ['fr'] })).toEqual(['gamma.fr']);
    expect(await wp({ countries: ['DE'], languages: ['fr'] })).toEqual([]);
    expect(await wp({ countries: ['DE'], languages: ['fr'], matchCountryLanguage: false })).toEqual([
      'beta.de',
      'gamma.fr',
    ]);
  });

  it('filters: industries, companySizes (labels and codes), tlds, requiredSets, rootPath', async () => {
    expect(await wp({ industries: ['retail'] })).toEqual(['alpha.com']);
    expect(await wp({ companySizes: ['5000'] })).toEqual(['beta.de']);
    expect(await wp({ companySizes: ['11-50', '1001-5000'] })).toEqual(['alpha.com', 'beta.de']);
    expect(await wp({ tlds: ['de', '.fr'] })).toEqual(['beta.de', 'gamma.fr']);
    expect(await wp({ requiredSets: ['meta'] })).toEqual(['alpha.com', 'beta.de']);
    expect(await wp({ requiredSets: ['meta', 'email'] })).toEqual(['alpha.com']);
    expect(await wp({ rootPath: true })).not.toContain('beta.de');
  });

  it('filters: age window (minAge/maxAge boundaries), fromDate', async () => {
    expect(await wp({ maxAge: 3 })).not.toContain('old.org');
    expect(await wp({ maxAge: 6 })).toContain('old.org');
    expect(await wp({ minAge: 4, maxAge: 6 })).toEqual(['old.org']);
    const weeksAgo = Math.floor(Date.now() / 1000) - 60 * 86_400;
    expect(await wp({ fromDate: weeksAgo })).toEqual(['gamma.fr']);
  });

  it('filters: subdomains include/exclude/merge, excludeNoTraffic, excludeMultilingual', async () => {
    expect(await wp({ subdomains: 'exclude' })).not.toContain('shop.alpha.com');
    const merged = await wp({ subdomains: 'merge' });
    expect(merged).toContain('alpha.com');
    expect(merged).not.toContain('shop.alpha.com');
    expect(await wp({ excludeNoTraffic: true })).not.toContain('gamma.fr');
    expect(await hosts({ technologies: [{ slug: 'shopify' }], excludeNoTraffic: true })).toEqual([]);
    expect(await wp({ excludeMultilingual: true })).not.toContain('beta.de');
  });

  it('filters: matchTechnologies or / and / not', async () => {
    const techs = [{ slug: 'wordpress' }, { slug: 'php' }];
    expect(await hosts({ technologies: techs, matchTechnologies: 'and' })).toEqual([
      'alpha.com',
      'delta.com',
    ]);
    expect(await hosts({ technologies: techs, matchTechnologies: 'not' })).toEqual([
      'beta.de',
      'gamma.fr',
      'shop.alpha.com',
    ]);
    const list = await kit.make(filterKey(), { technologies: techs, matchTechnologies: 'not' });
    expect(list.rows).toEqual({ wordpress: 3 });
  });

  it('filters: subset and subsetSlice take a traffic slice; no effect when subset >= results', async () => {
    const jq = (extra: Record<string, unknown>) =>
      hosts({ technologies: [{ slug: 'jquery', version: '3', operator: '=' }], ...extra });
    expect(await jq({ subset: 2 })).toEqual(['rank1.net', 'rank2.net']);
    expect(await jq({ subset: 2, subsetSlice: 2 })).toEqual(['rank5.net', 'rank6.net']);
    expect(await jq({ subset: 2, subsetSlice: 4 })).toEqual(['rank10.net', 'rank9.net']);
    expect(await jq({ subset: 4, subsetSlice: 4 })).toEqual([
      'rank10.net',
      'rank7.net',
      'rank8.net',
      'rank9.net',
    ]);
    expect((await jq({ subset: 10, subsetSlice: 3 })).length).toBe(10);
    expect((await jq({ subset: 50 })).length).toBe(10);
  });

  it('categories add their top technologies by websites', async () => {
    const list = await kit.make(filterKey(), { categories: ['ecommerce'] });
    expect(list.status).toBe('Ready');
    expect(list.technologies.length).toBeLessThanOrEqual(100);
    expect(
      list.technologies
        .slice(0, 2)
        .map((t: { slug: string }) => t.slug)
        .sort(),
    ).toEqual(['shopify', 'woocommerce']);
    expect(list.rows.shopify).toBe(1);
    expect(list.rows.woocommerce).toBe(1);
  });

  it.each([
    [{}, 'technologies'],
    [{ technologies: 'wordpress' }, 'technologies'],
    [{ technologies: [{ slug: 'no-such-tech' }] }, 'technologies'],
    [{ technologies: [{ slug: 'wordpress', version: 'latest' }] }, 'technologies'],
    [{ technologies: [{ slug: 'wordpress', version: '4', operator: '<' }] }, 'technologies'],
    [{ technologies: [{ slug: 'wordpress', operator: '>=' }] }, 'technologies'],
    [{ technologies: Array.from({ length: 101 }, (_, i) => ({ slug: `t${i}` })) }, 'technologies'],
    [{ categories: ['no-such-category'] }, 'categories'],
    [{ technologies: [{ slug: 'wordpress' }], keywords: ['Shoes!'] }, 'keywords'],
    [{ technologies: [{ slug: 'wordpress' }], keywords: [3] }, 'keywords'],
    [{ technologies: [{ slug: 'wordpress' }], languages: ['english'] }, 'languages'],
    [{ technologies: [{ slug: 'wordpress' }], countries: ['USA'] }, 'countries'],
    [{ technologies: [{ slug: 'wordpress' }], companySizes: ['4999'] }, 'companySizes'],
    [{ technologies: [{ slug: 'wordpress' }], tlds: ['not a tld'] }, 'tlds'],
    [{ technologies: [{ slug: 'wordpress' }], matchTechnologies: 'xor' }, 'matchTechnologies'],
    [{ technologies: [{ slug: 'wordpress' }], rootPath: 'maybe' }, 'rootPath'],
    [{ technologies: [{ slug: 'wordpress' }], subset: 0 }, 'subset'],
    [{ technologies: [{ slug: 'wordpress' }], subsetSlice: 5 }, 'subsetSlice'],
    [{ technologies: [{ slug: 'wordpress' }], minAge: 12 }, 'minAge'],
    [{ technologies: [{ slug: 'wordpress' }], maxAge: 0 }, 'maxAge'],
    [{ technologies: [{ slug: 'wordpress' }], maxAge: 13 }, 'maxAge'],
    [{ technologies: [{ slug: 'wordpress' }], minAge: 3, maxAge: 3 }, 'minAge'],
    [{ technologies: [{ slug: 'wordpress' }], fromDate: -1 }, 'fromDate'],
    [{ technologies: [{ slug: 'wordpress' }], requiredSets: ['nope'] }, 'requiredSets'],
    [{ technologies: [{ slug: 'wordpress' }], sets: ['nope'] }, 'sets'],
    [{ technologies: [{ slug: 'wordpress' }], subdomains: 'only' }, 'subdomains'],
    [{ technologies: [{ slug: 'wordpress' }], excludeNoTraffic: 1.5 }, 'excludeNoTraffic'],
    [{ technologies: [{ slug: 'wordpress' }], excludeListId: 'abc' }, 'excludeListId'],
    [
      { technologies: [{ slug: 'wordpress' }], excludeListId: 'lst_000000000000000000000000' },
      'excludeListId',
    ],
    [{ technologies: [{ slug: 'wordpress' }], baseListId: 'lst_000000000000000000000000' }, 'baseListId'],
    [{ technologies: [{ slug: 'wordpress' }], callbackUrl: 'ftp://x' }, 'callbackUrl'],
    [{ technologies: [{ slug: 'wordpress' }], format: 'xml' }, 'format'],
  ])('400 naming the field for %j', async (body, field) => {
    const res = await kit.call('/v2/lists', key, { method: 'POST', body });
    expect(res.status).toBe(400);
    expect(res.body.parameter ?? res.body.details?.parameter ?? res.text).toContain(field);
    expect(res.text).toContain(field);
  });

  it('finalize: wrong amount 400, insufficient 403 leaves it Ready, exact amount Complete with one charge', async () => {
    const poor = (await kit.service.createAccount({ plan: 'business', credits: 1 })).apiKey;
    const list = await kit.make(poor, { technologies: [{ slug: 'wordpress' }] });
    expect(list.totalCredits).toBe(5);
    const wrong = await kit.call(`/v2/lists/${list.id}`, poor, { method: 'POST', body: { spendCredits: 4 } });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('spendCredits');
    const missing = await kit.call(`/v2/lists/${list.id}/`, poor, { method: 'POST', body: {} });
    expect(missing.status).toBe(400);
    const insufficient = await kit.call(`/v2/lists/${list.id}`, poor, {
      method: 'POST',
      body: { spendCredits: 5 },
    });
    expect(insufficient.status).toBe(403);
    const after = await kit.call(`/v2/lists/${list.id}`, poor);
    expect(after.body.status).toBe('Ready');
    expect(after.body.url).toBeNull();
    expect((await kit.call('/v2/credits/balance/', poor)).body.credits).toBe(1);

    const before = (await kit.call('/v2/credits/balance/', key)).body.credits;
    const mine = await kit.make(key, { technologies: [{ slug: 'wordpress' }] });
    const done = await kit.call(`/v2/lists/${mine.id}/`, key, { method: 'POST', body: { spendCredits: 5 } });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      id: mine.id,
      status: 'Complete',
      url: expect.stringContaining(`/v2/lists/${mine.id}/files/full.zip?`),
    });
    expect(done.headers.get('service-credits-spent')).toBe('5');
    expect((await kit.call('/v2/credits/balance/', key)).body.credits).toBe(before - 5);
    const again = await kit.call(`/v2/lists/${mine.id}`, key, { method: 'POST', body: { spendCredits: 5 } });
    expect(again.status).toBe(409);
    expect((await kit.call('/v2/credits/balance/', key)).body.credits).toBe(before - 5);
    const ledger = await kit.service.running.services.credits.ledger(accountId, 10);
    expect(
      ledger.entries.filter((e) => e.reason === `POST /v2/lists/${mine.id}`).map((e) => e.delta),
    ).toEqual([-5]);

    const full = await kit.call(`/v2/lists/${mine.id}`, key);
    expect(full.body.status).toBe('Complete');
    const zip = await kit.download(full.body.url);
    expect(zip.status).toBe(200);
    const files = await unzip(zip.body);
    expect(
      parseCsv(files.get('wordpress.csv')!)
        .map((r) => r.hostname)
        .sort(),
    ).toEqual(['alpha.com', 'beta.de', 'delta.com', 'gamma.fr', 'shop.alpha.com']);
  });

  /** Finalizes a one-credit list, then removes its full.zip once the list.files job has written it. */
  const finalizeWithoutFullFile = async (apiKey: string, listId: string) => {
    const done = await kit.call(`/v2/lists/${listId}`, apiKey, { method: 'POST', body: { spendCredits: 1 } });
    expect(done.status).toBe(200);
    const { files } = kit.service.running.services.lists;
    await eventually(() => files.exists(listId, 'full.zip'), {
      describe: `full.zip of ${listId} to be written`,
      intervalMs: 100,
    });
    rmSync(join(kit.dir, listId, 'full.zip'));
    return done;
  };

  it('full.zip is written by the list.files job after Ready; until then its download is 503 with Retry-After', async () => {
    const { apiKey } = await kit.service.createAccount({ plan: 'business', credits: 10 });
    const list = await kit.make(apiKey, { technologies: [{ slug: 'shopify' }] });
    expect(list.status).toBe('Ready');
    const { db, lists } = kit.service.running.services;
    const jobs = (await db.query('SELECT kind FROM jobs WHERE unique_key = ?', [
      `list-files:${list.id}`,
    ])) as {
      kind: string;
    }[];
    expect(jobs.map((j) => j.kind)).toEqual(['list.files']);
    // As if the job had not run yet: the link is given, the file answers 503 until it exists.
    const done = await finalizeWithoutFullFile(apiKey, list.id);
    const early = await fetch(new URL(done.body.url, kit.service.url));
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('5');
    expect(await early.json()).toMatchObject({ code: 'FILE_NOT_READY', retryAfter: 5 });
    await lists.writeFullFile({ listId: list.id });
    const zip = await kit.download(done.body.url);
    expect(zip.status).toBe(200);
    const files = await unzip(zip.body);
    expect(parseCsv(files.get('shopify.csv')!).map((r) => r.hostname)).toEqual(['epsilon.io']);
  });

  it('a list.files job that died (or a full.zip gone from the disk) is started again by the next download', async () => {
    const { apiKey } = await kit.service.createAccount({ plan: 'business', credits: 10 });
    const list = await kit.make(apiKey, { technologies: [{ slug: 'shopify' }] });
    const { db, lists } = kit.service.running.services;
    // The job died after its retries two minutes ago, and no file is on the disk.
    const done = await finalizeWithoutFullFile(apiKey, list.id);
    const job = await db.manager.findOneByOrFail(JobEntity, { uniqueKey: `list-files:${list.id}` });
    job.status = 'dead';
    job.finishedAt = new Date(Date.now() - 120_000);
    await db.manager.save(job);
    const first = await fetch(new URL(done.body.url, kit.service.url));
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('5');
    expect(await first.json()).toMatchObject({ code: 'FILE_NOT_READY' });
    const zip = await kit.download(done.body.url); // waits through the 503s
    expect(zip.status).toBe(200);
    const files = await unzip(zip.body);
    expect(parseCsv(files.get('shopify.csv')!).map((r) => r.hostname)).toEqual(['epsilon.io']);
    const jobs = (await db.query('SELECT status, attempts FROM jobs WHERE unique_key = ?', [
      `list-files:${list.id}`,
    ])) as { status: string; attempts: number }[];
    expect(jobs).toEqual([{ status: 'succeeded', attempts: 1 }]);

    // A job that finished less than a minute ago is left alone: the file stays missing. The 503 is
    // answered once the download has decided (a restart would have queued the job by then, and a
    // restarted job that ran since would have a new finishedAt).
    rmSync(join(kit.dir, list.id, 'full.zip'));
    const finished = await db.manager.findOneByOrFail(JobEntity, { uniqueKey: `list-files:${list.id}` });
    const again = await fetch(new URL(done.body.url, kit.service.url));
    expect(again.status).toBe(503);
    await again.arrayBuffer();
    expect(await db.manager.findOneByOrFail(JobEntity, { uniqueKey: `list-files:${list.id}` })).toMatchObject(
      {
        status: 'succeeded',
        attempts: 1,
        finishedAt: finished.finishedAt,
      },
    );
    expect(lists.files.exists(list.id, 'full.zip')).toBe(false);
  });

  it('signed links: tampered or expired 403, full.zip not before Complete', async () => {
    const list = await kit.make(key, { technologies: [{ slug: 'shopify' }], format: 'json' });
    const link = new URL(list.sampleUrl, kit.service.url);
    expect((await kit.download(link.toString())).status).toBe(200);
    const json = await unzip((await kit.download(link.toString())).body);
    expect(JSON.parse(json.get('shopify.json')!)).toEqual([
      expect.objectContaining({
        hostname: 'epsilon.io',
        technology: 'shopify',
        country: 'GB',
        trafficRank: expect.any(Number),
      }),
    ]);
    const tampered = new URL(link);
    tampered.searchParams.set('expires', String(Number(link.searchParams.get('expires')) + 1));
    expect((await kit.download(tampered.toString())).status).toBe(403);
    const otherFile = new URL(link.toString().replace('sample.zip', 'full.zip'));
    expect((await kit.download(otherFile.toString())).status).toBe(403);
    const files = kit.service.running.services.lists.files;
    const past = Math.floor(Date.now() / 1000) - 10;
    const expired = `/v2/lists/${list.id}/files/sample.zip?expires=${past}&signature=${files.signature(list.id, 'sample.zip', past)}`;
    expect((await kit.download(expired)).status).toBe(403);
    const future = Math.floor(Date.now() / 1000) + 100;
    const early = `/v2/lists/${list.id}/files/full.zip?expires=${future}&signature=${files.signature(list.id, 'full.zip', future)}`;
    expect((await kit.download(early)).status).toBe(404);
  });

  it('Insufficient when nothing matches; callback and listReady subscription carry the result', async () => {
    const { apiKey, accountId: id } = await kit.service.createAccount({ plan: 'business', credits: 10 });
    const secret = (await kit.service.running.services.accounts.createSigningSecret(id)).secret;
    const receiver = await startCallbackReceiver({ secret });
    try {
      const empty = await kit.make(apiKey, {
        technologies: [{ slug: 'magento' }],
        callbackUrl: receiver.url,
      });
      expect(empty.status).toBe('Insufficient');
      expect(empty.totalCredits).toBe(0);
      expect(empty.sampleUrl).toBeNull();
      const ready = await kit.make(apiKey, {
        technologies: [{ slug: 'php' }],
        sets: ['email'],
        callbackUrl: receiver.urlFor('/ready'),
      });
      const calls = await receiver.waitFor(2, 20_000);
      const bodies = calls.map((c) => ({ path: c.path, body: JSON.parse(c.body), valid: c.signatureValid }));
      expect(bodies).toEqual(
        expect.arrayContaining([
          {
            path: '/callback',
            valid: true,
            body: expect.objectContaining({ id: empty.id, status: 'Insufficient' }),
          },
          {
            path: '/ready',
            valid: true,
            body: {
              id: ready.id,
              status: 'Ready',
              rows: { php: 2 },
              setRows: { email: 1 },
              totalCredits: 2,
              sampleUrl: expect.stringContaining(`/v2/lists/${ready.id}/files/sample.zip`),
            },
          },
        ]),
      );
    } finally {
      await receiver.close();
    }
  });

  it('excludeListId (recursive) and baseListId', async () => {
    const k = keys[3];
    const a = await kit.make(k, { technologies: [{ slug: 'wordpress' }], countries: ['US'] });
    expect(a.totalCredits).toBe(3);
    const b = await kit.make(k, {
      technologies: [{ slug: 'wordpress' }],
      excludeListId: a.id,
      countries: ['FR'],
    });
    expect(b.totalCredits).toBe(1);
    const c = await kit.make(k, { technologies: [{ slug: 'wordpress' }], excludeListId: b.id });
    // b excluded a: c excludes both (alpha, shop.alpha, delta and gamma): beta.de remains.
    expect(c.rows).toEqual({ wordpress: 1 });
    const base = await kit.make(k, { technologies: [{ slug: 'php' }], baseListId: a.id });
    expect(base.rows).toEqual({ php: 2 });
    expect(base.baseListId).toBe(a.id);
    expect(base.baseList).toMatchObject({ id: a.id, status: 'Ready', totalCredits: 3 });
    const notMine = await kit.call('/v2/lists', other, {
      method: 'POST',
      body: { technologies: [{ slug: 'wordpress' }], baseListId: a.id },
    });
    expect(notMine.status).toBe(400);
  });

  it('GET all, another account 404, DELETE removes the list and its files', async () => {
    const list = await kit.make(key, { technologies: [{ slug: 'shopify' }] });
    const all = await kit.call('/v2/lists/', key);
    expect(all.status).toBe(200);
    expect(all.body.find((l: { id: string }) => l.id === list.id)).toEqual({
      id: list.id,
      createdAt: expect.any(Number),
      status: 'Ready',
      totalCredits: 1,
      technologies: [expect.objectContaining({ slug: 'shopify' })],
      keywords: [],
      rows: 1,
    });
    expect((await kit.call(`/v2/lists/${list.id}`, other)).status).toBe(404);
    expect((await kit.call(`/v2/lists/${list.id}`, other, { method: 'DELETE' })).status).toBe(404);
    expect(
      (await kit.call('/v2/lists', other)).body.find((l: { id: string }) => l.id === list.id),
    ).toBeUndefined();
    const sample = list.sampleUrl;
    const deleted = await kit.call(`/v2/lists/${list.id}/`, key, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await kit.call(`/v2/lists/${list.id}`, key)).status).toBe(404);
    expect((await kit.download(sample)).status).toBe(404);
    expect((await kit.call(`/v2/lists/${list.id}`, key, { method: 'DELETE' })).status).toBe(404);
  });

  it('a calculation whose list row is gone writes no rows', async () => {
    const list = await kit.make(key, { technologies: [{ slug: 'shopify' }] });
    const { db, lists } = kit.service.running.services;
    const [{ request }] = (await db.query('SELECT request FROM lead_lists WHERE id = ?', [list.id])) as {
      request: string;
    }[];
    const gone = 'lst_000000000000000000000000';
    // MariaDB: the list row is share-locked once instead of checked by the foreign key per row.
    await expect(lists.calculator.calculate(gone, JSON.parse(request), new Date())).rejects.toThrow();
    const [{ n }] = (await db.query('SELECT COUNT(*) AS n FROM lead_list_sites WHERE list_id = ?', [
      gone,
    ])) as { n: number | string }[];
    expect(Number(n)).toBe(0);
  });

  it('plan: lists need the Business plan; usage stays available', async () => {
    const { apiKey: small } = await kit.service.createAccount({ plan: 'large', credits: 100 });
    const res = await kit.call('/v2/lists', small, {
      method: 'POST',
      body: { technologies: [{ slug: 'wordpress' }] },
    });
    expect(res.status).toBe(403);
    expect((await kit.call('/v2/lists/', small)).status).toBe(403);
    expect((await kit.call('/v2/lists/usage', key)).status).toBe(200);
  });

  it('daily limit: the 26th list of a UTC day is 429', async () => {
    const { apiKey } = await kit.service.createAccount({ plan: 'business', credits: 0 });
    for (let i = 0; i < 25; i++) {
      const res = await kit.call('/v2/lists', apiKey, {
        method: 'POST',
        body: { technologies: [{ slug: 'shopify' }] },
      });
      expect(res.status).toBe(200);
      await kit.settle(res.body.id, apiKey);
    }
    const refused = await kit.call('/v2/lists', apiKey, {
      method: 'POST',
      body: { technologies: [{ slug: 'shopify' }] },
    });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('per day');
  }, 120_000);

  it('a really analysed local site is found by its detected technology and version', async () => {
    const sites = await startTestSites();
    try {
      const analysis = await kit.service.running.services.analyzer.analyzePage(sites.url('/'));
      expect(analysis.ok).toBe(true);
      const host = new URL(sites.url('/')).host;
      const found = await hosts({ technologies: [{ slug: 'wordpress', version: '6.4', operator: '=' }] });
      expect(found).toContain(host);
      expect(found).toContain('alpha.com');
      expect(await hosts({ technologies: [{ slug: 'wordpress', version: '6.5', operator: '>=' }] })).toEqual(
        [],
      );
    } finally {
      await sites.close();
    }
  });

  it('excludeListId caps: at most 10 lists (recursively) and 500,000 websites', async () => {
    const { apiKey, accountId: owner } = await kit.service.createAccount({ plan: 'business', credits: 0 });
    let previous: string | undefined;
    // The 11th list excludes the 10 before it (allowed); a 12th would exclude 11.
    for (let i = 0; i < 11; i++) {
      const list = await kit.make(apiKey, {
        technologies: [{ slug: 'jquery' }],
        subset: 1,
        ...(previous ? { excludeListId: previous } : {}),
      });
      expect(list.status).toBe('Ready');
      // Each list excludes every earlier one: the next-best site by traffic.
      expect(list.totalCredits).toBe(1);
      previous = list.id;
    }
    const twelfth = await kit.call('/v2/lists', apiKey, {
      method: 'POST',
      body: { technologies: [{ slug: 'jquery' }], excludeListId: previous },
    });
    expect(twelfth.status).toBe(400);
    expect(twelfth.text).toContain('excludeListId');
    expect(twelfth.text).toContain('at most 10 lists');

    // A Ready list of 500,001 websites (rows written straight into the table).
    const { db } = kit.service.running.services;
    const big = 'lst_' + 'b'.repeat(24);
    await db.manager.insert(LeadListEntity, {
      id: big,
      accountId: owner,
      status: 'Ready',
      request: JSON.stringify({ technologies: [], keywords: [], excludeListIds: [] }),
      rows: '{}',
      setRows: '{}',
      websites: 500_001,
      totalCredits: 500_001,
      error: null,
      createdAt: new Date(Date.now() - 86_400_000 * 2),
      readyAt: new Date(),
      completedAt: null,
      deletedAt: null,
    });
    const digits = Array.from({ length: 10 }, (_, d) => `SELECT ${d} AS d`).join(' UNION ALL ');
    const tables = ['a', 'b', 'c', 'e', 'f', 'g'];
    const value = tables.map((t, i) => `${t}.d * ${10 ** i}`).join(' + ');
    await db.query(
      `INSERT INTO lead_list_sites (list_id, slug, site_id) SELECT ?, 'x', ${value} + 1 FROM ` +
        tables.map((t) => `(${digits}) ${t}`).join(', ') +
        ` WHERE ${value} < 500001`,
      [big],
    );
    const tooMany = await kit.call('/v2/lists', apiKey, {
      method: 'POST',
      body: { technologies: [{ slug: 'jquery' }], excludeListId: big },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.text).toContain('500000 websites');
    await db.query('DELETE FROM lead_list_sites WHERE list_id = ? AND site_id = 1', [big]);
    const justEnough = await kit.call('/v2/lists', apiKey, {
      method: 'POST',
      body: { technologies: [{ slug: 'jquery' }], excludeListId: big },
    });
    expect(justEnough.status).toBe(200);
    await kit.settle(justEnough.body.id, apiKey);
  }, 120_000);

  it("subdomains=merge: one row per domain with its subdomains' technologies and data merged", async () => {
    await seedSites(kit.service.running.services.db.manager, [
      {
        hostname: 'merge.org',
        country: 'US',
        languages: ['en'],
        trafficRank: 40,
        setsMask: 0b1000, // email
        enrichment: { email: { email: ['a@merge.org'] }, social: { twitter: ['https://x.com/merge'] } },
        techs: [{ slug: 'wordpress', version: '5.9', firstMonthsAgo: 20, monthsAgo: 1 }],
      },
      {
        hostname: 'blog.merge.org',
        languages: ['de'],
        industry: 'Publishing',
        trafficRank: 20,
        setsMask: 0b101100, // phone + email + social
        enrichment: {
          email: { email: ['b@merge.org', 'a@merge.org'] },
          phone: { phone: ['+49 30 1234567'] },
          social: { facebook: ['https://facebook.com/merge'] },
        },
        techs: [
          { slug: 'wordpress', version: '6.2' },
          { slug: 'php', version: '8.2' },
        ],
      },
      { hostname: 'shop.merge.org', trafficRank: 60, techs: [{ slug: 'woocommerce', version: '8.1' }] },
    ]);
    const body = {
      technologies: [{ slug: 'wordpress' }, { slug: 'php' }, { slug: 'woocommerce' }],
      tlds: ['.org'],
      sets: ['email', 'phone', 'social'],
    };
    const included = await kit.make(filterKey(), body);
    expect(included.websites).toBe(3);

    const list = await kit.make(filterKey(), { ...body, subdomains: 'merge' });
    expect(list.status).toBe('Ready');
    expect(list.rows).toEqual({ wordpress: 1, php: 1, woocommerce: 1 });
    expect(list.websites).toBe(1);
    expect(list.totalCredits).toBe(1);
    expect(list.setRows).toEqual({ email: 1, phone: 1, social: 1 });
    const files = await unzip((await kit.download(list.sampleUrl)).body);
    const only = (name: string) => {
      const rows = parseCsv(files.get(name)!);
      expect(rows).toHaveLength(1);
      return rows[0];
    };
    const wordpress = only('wordpress.csv');
    // The domain's own site stands for the domain in every file, with the domain's merged data.
    expect(wordpress).toMatchObject({
      hostname: 'merge.org',
      subdomain: 'false',
      technology: 'wordpress',
      version: '6.2',
      country: 'US',
      industry: 'Publishing',
      languages: 'de; en',
      email: 'a@merge.org; b@merge.org',
      phone: '+49 30 1234567',
      twitter: 'https://x.com/merge',
      facebook: 'https://facebook.com/merge',
    });
    const months = (iso: string) => (Date.now() - Date.parse(iso)) / (30 * 86_400_000);
    expect(months(wordpress.firstDetected)).toBeGreaterThan(18);
    expect(months(wordpress.lastDetected)).toBeLessThan(0.5);
    expect(only('php.csv')).toMatchObject({
      hostname: 'merge.org',
      version: '8.2',
      email: 'a@merge.org; b@merge.org',
    });
    expect(only('woocommerce.csv')).toMatchObject({
      hostname: 'merge.org',
      version: '8.1',
      phone: '+49 30 1234567',
    });
  });
});
