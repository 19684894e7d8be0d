import { creditHeaders, q } from '../analysis-api/analysis-test-kit';
import { untilNotRateLimited } from '../../helpers/test-retry';
import { ageSite, LookupKit, startLookupKit } from './lookup-v2-kit';
import { ENRICHMENT_FIELD_ORDER } from '../../../src/services/analysis/enrichment-fields';
import { toLookupV2Object, type SiteLookup } from '../../../src/services/lookup/lookup.contract';
import { siteKeyOf } from '../../../src/services/site-index/site-key';

/**
 * GET /v2/lookup/ end to end: real local sites analysed by the real service, enrichment stored in
 * the index and read back without fetching, every parameter and its bad values, callbacks per URL,
 * credits and their headers, on SQLite and (with TEST_DATABASE_URL) MariaDB.
 */
/** The fields of each set, as the spec's enriched lookup record and the issue list them. */
const SET_FIELDS: Record<string, string[]> = {
  meta: ['title', 'description', 'copyright', 'copyrightYear', 'responsive', 'schemaOrgTypes'],
  company: [
    'companyName',
    'inferredCompanyName',
    'industry',
    'about',
    'companySize',
    'companyType',
    'companyFounded',
    'locations',
  ],
  phone: ['phone'],
  email: ['email', 'verifiedEmail', 'safeEmail'],
  contact: ['employees'],
  social: [
    'twitter',
    'facebook',
    'linkedin',
    'instagram',
    'github',
    'youtube',
    'tiktok',
    'pinterest',
    'xing',
    'vimeo',
    'mastodon',
  ],
  signals: ['technologySpend', 'trafficLevel'],
  locale: ['ipCountry', 'ipRegion', 'ipCountries', 'language', 'languages'],
  security: ['certInfo', 'https', 'dns'],
  trackers: ['trackers'],
  keywords: ['keywords'],
  events: ['createdAt', 'updatedAt', 'crawlAttemptedAt'],
};

describe('GET /v2/lookup/', () => {
  let kit: LookupKit;
  let key: string;
  let accountId: number;

  beforeAll(async () => {
    kit = await startLookupKit();
    ({ apiKey: key, accountId } = await kit.service.createAccount({ plan: 'business', credits: 1000 }));
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
  });

  const lookup = (params: Record<string, string>, apiKey = key) =>
    kit.getPatiently(`/v2/lookup/?${q(params)}`, apiKey);

  describe('parameters', () => {
    const cases: [string, Record<string, string>, string][] = [
      ['no urls', {}, 'urls'],
      ['eleven urls', { urls: Array.from({ length: 11 }, (_, i) => `site${i}.test`).join(',') }, 'urls'],
      ['a URL that is not http(s)', { urls: 'ftp://example.test/' }, 'urls'],
      ['two URLs with recursive=false', { urls: 'a.test,b.test', recursive: 'false' }, 'urls'],
      ['an unknown set', { urls: 'a.test', sets: 'meta,colour' }, 'sets'],
      ['live not a boolean', { urls: 'a.test', live: 'maybe' }, 'live'],
      ['recursive not a boolean', { urls: 'a.test', recursive: 'often' }, 'recursive'],
      ['denoise not a boolean', { urls: 'a.test', denoise: '2' }, 'denoise'],
      ['squash not a boolean', { urls: 'a.test', squash: 'no way' }, 'squash'],
      ['min_age above 11', { urls: 'a.test', min_age: '12' }, 'min_age'],
      ['min_age negative', { urls: 'a.test', min_age: '-1' }, 'min_age'],
      ['max_age 0', { urls: 'a.test', max_age: '0' }, 'max_age'],
      ['max_age above 12', { urls: 'a.test', max_age: '13' }, 'max_age'],
      ['max_age not a number', { urls: 'a.test', max_age: 'two' }, 'max_age'],
      ['min_age not below max_age', { urls: 'a.test', min_age: '3', max_age: '3' }, 'min_age'],
      ['debug_email not an address', { urls: 'a.test', debug_email: 'nobody' }, 'debug_email'],
      ['an unknown parameter', { urls: 'a.test', colour: 'red' }, 'colour'],
      ['an unseen site, recursive, no callback_url', { urls: 'unseen-site.test' }, 'callback_url'],
    ];
    it.each(cases)('refuses %s with a 400 naming %s, charging nothing', async (_name, params, name) => {
      const before = await kit.balance(accountId);
      const res = await lookup(params);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(name);
      expect(res.body.parameter).toBe(name);
      expect(await kit.balance(accountId)).toBe(before);
    });

    it('accepts every parameter at its default, as real clients send them', async () => {
      const res = await lookup({
        urls: kit.sites.url('/'),
        live: 'false',
        recursive: 'false',
        sets: 'meta',
        denoise: 'true',
        min_age: '0',
        max_age: '2',
        squash: 'true',
        debug_email: 'dev@client.test',
      });
      expect(res.status).toBe(200);
      expect(res.body[0].technologies.length).toBeGreaterThan(0);
    });
  });

  describe('a site analysed now, then answered from the index', () => {
    let first: Awaited<ReturnType<typeof lookup>>;
    let callback: Record<string, unknown>;
    let fetchedPaths: number;

    beforeAll(async () => {
      // A crawl indexes the company site (contact, imprint and team pages first), then stored lookups follow.
      const receiver = await kit.receiverFor(accountId);
      first = await lookup({ urls: kit.companyUrl, callback_url: receiver.urlFor('/acme'), sets: 'all' });
      callback = JSON.parse((await receiver.waitFor(1, 40_000))[0].body);
      await kit.jobsSettled();
      await kit.service.running.services.trafficRanks.refreshObservedRanks();
      fetchedPaths = kit.company.requests.length;
    }, 90_000);

    it('answers an unseen site with {url, crawl: true} and calls back with the enriched record', async () => {
      expect(first.status).toBe(200);
      expect(first.body).toEqual([{ url: kit.companyUrl, crawl: true }]);
      expect(creditHeaders(first).spent).toBe(5);
      expect(callback).toMatchObject({
        url: kit.companyUrl,
        technologies: expect.any(Array),
        companyName: 'Acme Robotics GmbH',
        verifiedEmail: ['info@acme-robotics.de'],
      });
    });

    it('answers from the index with every set, fetching nothing, for 1 credit', async () => {
      const balance = await kit.balance(accountId);
      const res = await lookup({ urls: kit.companyUrl, sets: 'all' });
      expect(res.status).toBe(200);
      expect(kit.company.requests.length).toBe(fetchedPaths);
      expect(creditHeaders(res)).toEqual({ spent: 1, remaining: balance - 1 });
      const record = res.body[0];
      expect(record.url).toBe(kit.companyUrl);
      expect(record).toMatchObject({
        title: expect.any(String),
        responsive: true,
        companyName: 'Acme Robotics GmbH',
        companySize: '51-200',
        companyFounded: 2009,
        language: 'en',
        ipCountry: 'DE',
        ipRegion: 'Berlin',
        https: false,
        dns: { spf: true, dmarc: true },
        trafficLevel: 'Very high',
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
        crawlAttemptedAt: expect.any(Number),
      });
      expect(record.schemaOrgTypes).toEqual(expect.arrayContaining(['Organization']));
      expect(record.phone).toEqual(expect.arrayContaining(['+49301234567']));
      expect(record.email).toEqual(
        expect.arrayContaining(['info@acme-robotics.de', 'sales@acme-robotics.de']),
      );
      // The mail server accepts info@ only: verified addresses come from a real SMTP conversation.
      // info@ is a role account, which the verifier never calls safe: no safeEmail, rather than an empty one.
      expect(record.verifiedEmail).toEqual(['info@acme-robotics.de']);
      expect(record).not.toHaveProperty('safeEmail');
      expect(record.employees).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'Grace Hopper' })]),
      );
      expect(record.keywords?.length).toBeGreaterThan(0);
      for (const technology of record.technologies) {
        expect(Object.keys(technology).sort()).toEqual(
          expect.arrayContaining(['categories', 'confirmedAt', 'name', 'slug', 'trafficRank', 'versions']),
        );
        expect(technology).not.toHaveProperty('confidence');
        expect(technology.trafficRank).toBe(1);
        // The one field sent empty: the contract's Technology object always has versions ([] when unknown).
        expect(technology.versions).toEqual(expect.any(Array));
      }
      // No field is sent empty or null.
      for (const [field, value] of Object.entries(record)) {
        expect(value).not.toBeNull();
        if (Array.isArray(value) && field !== 'technologies') expect(value.length).toBeGreaterThan(0);
      }
    });

    it('gives only the sets asked for', async () => {
      const meta = (await lookup({ urls: kit.companyUrl, sets: 'meta' })).body[0];
      expect(meta.title).toEqual(expect.any(String));
      for (const absent of ['email', 'phone', 'companyName', 'ipCountry', 'dns', 'createdAt', 'trafficLevel'])
        expect(meta).not.toHaveProperty(absent);
      const none = (await lookup({ urls: kit.companyUrl })).body[0];
      expect(Object.keys(none).sort()).toEqual(['technologies', 'url']);
      const pair = (await lookup({ urls: kit.companyUrl, sets: 'security,events' })).body[0];
      expect(pair).toMatchObject({
        https: false,
        dns: { spf: true, dmarc: true },
        createdAt: expect.any(Number),
      });
      expect(pair).not.toHaveProperty('title');
    });

    it.each(Object.entries(SET_FIELDS))(
      'gives set %s alone: its own fields and no other',
      async (set, fields) => {
        const record = (await lookup({ urls: kit.companyUrl, sets: set })).body[0];
        const extra = Object.keys(record).filter((k) => !['url', 'technologies', ...fields].includes(k));
        expect(extra).toEqual([]);
        // The Acme site has a value in every set but trackers (it runs no analytics).
        if (set !== 'trackers') expect(Object.keys(record).length).toBeGreaterThan(2);
      },
    );

    it('gives the monthly history with squash=false', async () => {
      const res = await lookup({ urls: kit.companyUrl, squash: 'false', sets: 'meta' });
      const now = new Date();
      const month = `${String(now.getUTCMonth() + 1).padStart(2, '0')}-${now.getUTCFullYear()}`;
      expect(res.body[0]).toMatchObject({ url: kit.companyUrl, title: expect.any(String) });
      expect(res.body[0].results).toEqual([{ monthYear: month, technologies: expect.any(Array) }]);
      expect(res.body[0]).not.toHaveProperty('technologies');
    });

    it("answers the presenter's text of GraphQL's full answer, byte for byte, and follows the site's rank", async () => {
      // Every field the REST answer may have, as GraphQL gives them; the presenter's published
      // form of those must be exactly the REST text (stored answers are written from texts kept
      // per technology: lookup.contract.ts).
      const nested: Record<string, string> = {
        employees: '{ name title }',
        certInfo: '{ issuer protocol validTo }',
        dns: '{ spf dmarc }',
      };
      const technology = 'slug name cpe versions categories { id slug name } trafficRank confirmedAt';
      const selection =
        `url state technologies { ${technology} } months { monthYear technologies { ${technology} } } errors ` +
        ENRICHMENT_FIELD_ORDER.map((field) => `${field} ${nested[field] ?? ''}`).join(' ');
      const viaGraphql = async (params: Record<string, unknown>) => {
        const res = await untilNotRateLimited(kit.service, () =>
          kit.service.graphql(
            key,
            `query($urls: [String!]!, $sets: [String!]!, $squash: Boolean!, $denoise: Boolean!, $maxAge: Int!) {
              lookupV2(urls: $urls, sets: $sets, squash: $squash, denoise: $denoise, maxAge: $maxAge) { ${selection} } }`,
            params,
          ),
        );
        expect(res.body.errors).toBeUndefined();
        return JSON.stringify(res.body.data.lookupV2.map((lookup: SiteLookup) => toLookupV2Object(lookup)));
      };
      const urls = [kit.companyUrl, kit.sites.url('/')];
      expect((await lookup({ urls: urls[1], recursive: 'false' })).status).toBe(200); // indexed now
      for (const [rest, graphql] of [
        [{}, {}],
        [{ sets: 'all' }, { sets: ['all'] }],
        [{ squash: 'false' }, { squash: false }],
        [
          { denoise: 'false', max_age: '12' },
          { denoise: false, maxAge: 12 },
        ],
      ] as [Record<string, string>, Record<string, unknown>][]) {
        const res = await lookup({ urls: urls.join(','), ...rest });
        expect(res.status).toBe(200);
        expect(res.text).toBe(
          await viaGraphql({ urls, sets: [], squash: true, denoise: true, maxAge: 2, ...graphql }),
        );
      }
      // A new traffic rank (a rank refresh changes no analysis) is in the next answer.
      const { db } = kit.service.running.services;
      const { hostname } = siteKeyOf(kit.companyUrl);
      await db.query('UPDATE sites SET traffic_rank = ? WHERE hostname = ?', [424242, hostname]);
      const ranked = await lookup({ urls: kit.companyUrl });
      expect(ranked.body[0].technologies[0].trafficRank).toBe(424242);
      expect(ranked.text).toBe(
        await viaGraphql({ urls: [kit.companyUrl], sets: [], squash: true, denoise: true, maxAge: 2 }),
      );
    });

    it('answers the same through GraphQL, with the sets as typed fields and confidence', async () => {
      // Through the plan's 10 lookups a second, like the REST calls of this file (getPatiently).
      const res = await untilNotRateLimited(kit.service, () =>
        kit.service.graphql(
          key,
          `query($urls: [String!]!) { lookupV2(urls: $urls, sets: ["company", "security"]) {
          url state companyName certInfo { issuer } dns { spf dmarc } title
          technologies { slug confidence trafficRank categories { id slug name } } } }`,
          { urls: [kit.companyUrl] },
        ),
      );
      expect(res.body.errors).toBeUndefined();
      const [site] = res.body.data.lookupV2;
      expect(site).toMatchObject({
        url: kit.companyUrl,
        state: 'FOUND',
        companyName: 'Acme Robotics GmbH',
        dns: { spf: true, dmarc: true },
        title: null,
      });
      expect(site.technologies[0].confidence).toBeGreaterThanOrEqual(50);
    });
  });

  describe('the age window', () => {
    it('treats a result older than max_age as unseen, and one younger than min_age too', async () => {
      const url = kit.sites.url('/about/');
      const hostname = new URL(url).host;
      await lookup({ urls: url, recursive: 'false' });
      await ageSite(kit, hostname, 3);
      const before = kit.sites.requests.length;
      // Default max_age=2: three months old counts as unseen, so recursive=false analyses it again.
      const stale = await lookup({ urls: url, recursive: 'false' });
      expect(stale.status).toBe(200);
      expect(kit.sites.requests.length).toBeGreaterThan(before);
      await ageSite(kit, hostname, 3);
      const fetches = kit.sites.requests.length;
      const older = await lookup({ urls: url, recursive: 'false', max_age: '4' });
      expect(older.body[0].technologies.length).toBeGreaterThan(0);
      expect(kit.sites.requests.length).toBe(fetches);
      // min_age=4: a three-month-old result is too young; with recursive (the default) it needs a callback.
      const young = await lookup({ urls: url, min_age: '4', max_age: '12' });
      expect(young.status).toBe(400);
      expect(young.body.parameter).toBe('callback_url');
    });
  });

  describe('several URLs and failures', () => {
    it('calls back once per URL, refunds a site that cannot be analysed, and keeps answers in request order', async () => {
      const receiver = await kit.receiverFor(accountId);
      const stored = kit.sites.url('/');
      await lookup({ urls: stored, recursive: 'false' });
      const dead = 'http://127.0.0.1:9/';
      // Another site (its own host and port): the HTTPS one, with a self-signed certificate.
      const fresh = `${kit.sites.httpsUrl}/`;
      const balance = await kit.balance(accountId);
      const res = await lookup({
        urls: [stored, dead, fresh].join(','),
        callback_url: receiver.urlFor('/many'),
        live: 'false',
        sets: 'security',
      });
      expect(res.status).toBe(200);
      expect(res.body.map((r: { url: string }) => r.url)).toEqual([stored, dead, fresh]);
      expect(res.body[0].technologies.length).toBeGreaterThan(0);
      expect(res.body[1]).toEqual({ url: dead, crawl: true });
      expect(res.body[2]).toMatchObject({ url: fresh, crawl: true });
      // 1 stored answer + 2 crawls at 5.
      expect(creditHeaders(res).spent).toBe(11);
      const callbacks = await receiver.waitFor(2, 40_000);
      await kit.jobsSettled();
      const bodies = callbacks.map((c) => JSON.parse(c.body));
      expect(callbacks.every((c) => c.signatureValid)).toBe(true);
      const byUrl = Object.fromEntries(bodies.map((b) => [b.url, b]));
      expect(byUrl[dead]).toEqual({ url: dead, errors: [expect.any(String)] });
      expect(byUrl[fresh]).toMatchObject({
        url: fresh,
        technologies: expect.any(Array),
        https: true,
        certInfo: { issuer: expect.stringContaining(kit.sites.certificate.issuer) },
      });
      // The dead site's crawl was refunded.
      expect(await kit.balance(accountId)).toBe(balance - 11 + 5);
    }, 60_000);

    it('answers a site that cannot be analysed now with {url, errors} in a 200, free of charge', async () => {
      const balance = await kit.balance(accountId);
      const res = await lookup({ urls: 'http://127.0.0.1:9/', recursive: 'false' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([{ url: 'http://127.0.0.1:9/', errors: [expect.any(String)] }]);
      expect(creditHeaders(res).spent).toBe(0);
      expect(await kit.balance(accountId)).toBe(balance);
    });

    it('re-analyses a stored site with live=true, recursive=false', async () => {
      const url = kit.sites.url('/');
      await lookup({ urls: url, recursive: 'false' });
      const before = kit.sites.requests.length;
      const res = await lookup({ urls: url, recursive: 'false', live: 'true' });
      expect(res.status).toBe(200);
      expect(res.body[0].technologies.length).toBeGreaterThan(0);
      expect(kit.sites.requests.length).toBeGreaterThan(before);
      expect(creditHeaders(res).spent).toBe(1);
    });

    it('is served without the trailing slash too, and has a usage path', async () => {
      const res = await kit.getPatiently(
        `/v2/lookup?${q({ urls: kit.sites.url('/'), recursive: 'false' })}`,
        key,
      );
      expect(res.status).toBe(200);
      const usage = await kit.getPatiently('/v2/lookup/usage', key);
      expect(usage.status).toBe(200);
    });
  });
});
