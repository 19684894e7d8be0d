import { startDnsZoneServer, type DnsZoneServer } from '../../helpers/dns-zone-server';
import { expectMatchesContract, fetchOpenApiDocument, OpenApiDocument } from '../../helpers/openapi-contract';
import { untilNotRateLimited } from '../../helpers/test-retry';
import { startTestService, TestService } from '../../helpers/test-service';
import { getSubdomains, namesOf } from './subdomain-test-kit';

/**
 * The finder's rules over the real service: pagination while names arrive, input validation, the
 * Business-plan gate, credit charges with their headers, and the rate limit. Names are recorded the
 * way crawls record them (SiteIndexService.recordHostnames); the loopback name server knows none of
 * these domains, so the inline DNS pass finds nothing and every name here comes from the seeding.
 */
describe('subdomain finder rules', () => {
  let dns: DnsZoneServer;
  let service: TestService;
  let contract: OpenApiDocument;

  const seed = (names: string[]) =>
    service.running.services.db.transaction((m) =>
      service.running.services.siteIndex.recordHostnames(m, names, 'crawl', new Date()),
    );
  const business = async (credits = 1000) =>
    (await service.createAccount({ plan: 'business', credits })).apiKey;
  const label = (i: number) => `host${String(i).padStart(2, '0')}`;

  // Each set-up step is bounded and named, so a set-up that stalls says where (it once did, in CI).
  const step = <T>(name: string, work: Promise<T>): Promise<T> =>
    Promise.race([
      work,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`set-up step stalled: ${name}`)), 20_000).unref(),
      ),
    ]);

  beforeAll(async () => {
    dns = await step('DNS server', startDnsZoneServer([{ origin: 'unrelated.test', records: {} }]));
    service = await step(
      'service',
      startTestService({
        DNS_SERVERS: dns.server,
        EMBEDDED_WORKER: 'false',
        SUBDOMAIN_DNS_QUERY_TIMEOUT_MS: '500',
        SUBDOMAIN_DNS_TRIES: '1',
        SUBDOMAIN_INLINE_DNS_BUDGET_MS: '2000',
      }),
    );
    contract = await step('OpenAPI document', fetchOpenApiDocument(service.url));
    await step(
      'seeding names',
      (async () => {
        await seed(Array.from({ length: 45 }, (_, i) => `${label(i)}.paging.test`));
        await seed(['a.four-a.test', 'b.four-a.test', 'c.four-a.test', 'four-a.test']);
        await seed(['a.four-b.test', 'b.four-b.test', 'c.four-b.test', 'd.four-b.test']);
        await seed(Array.from({ length: 23 }, (_, i) => `${label(i)}.charged.test`));
        // Recorded by a crawl but refused by the finder's name rules (a service label).
        await seed(['_dmarc.four-b.test']);
      })(),
    );
  });

  afterAll(async () => {
    await service?.stop();
    await dns?.close();
  });

  describe('pagination', () => {
    it('walks every page without repeats or gaps while names are added, and ends without moreAfter', async () => {
      const key = await business();
      const seen: string[] = [];
      const addedAhead: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < 20; page++) {
        const res = await getSubdomains(service, key, {
          domains: 'paging.test',
          limit: '10',
          ...(after ? { after } : {}),
        });
        expect(res.status).toBe(200);
        expectMatchesContract(contract, 'GET', '/v2/subdomains/', 200, res.body, res.headers);
        const names = namesOf(res.body[0]);
        seen.push(...names);
        after = res.body[0].moreAfter;
        if (after === undefined) break;
        expect(names).toHaveLength(10);
        // Between pages: one name the walk has passed and one it has not reached yet.
        const last = names[names.length - 1];
        const ahead = `${last.split('.')[0]}z.paging.test`;
        addedAhead.push(ahead);
        await seed([`${label(0)}a.paging.test`, ahead]);
      }
      expect(after).toBeUndefined();
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual([...seen].sort());
      const original = Array.from({ length: 45 }, (_, i) => `${label(i)}.paging.test`);
      expect(seen).toEqual(expect.arrayContaining([...original, ...addedAhead]));
    });

    it('continues only the domain the cursor belongs to; the others start from their first page', async () => {
      const key = await business();
      const first = await getSubdomains(service, key, { domains: 'four-a.test,paging.test', limit: '10' });
      expect(first.body.map((r: { domain: string }) => r.domain)).toEqual(['four-a.test', 'paging.test']);
      expect(first.body[0]).not.toHaveProperty('moreAfter');
      const next = await getSubdomains(service, key, {
        domains: 'four-a.test,paging.test',
        limit: '10',
        after: first.body[1].moreAfter,
      });
      expect(namesOf(next.body[0])).toEqual(namesOf(first.body[0]));
      const firstPage = namesOf(first.body[1]);
      const secondPage = namesOf(next.body[1]);
      expect(secondPage[0] > firstPage[firstPage.length - 1]).toBe(true);
    });

    it('collapses duplicate domains after normalisation, keeping the order asked', async () => {
      const key = await business();
      const res = await getSubdomains(service, key, { domains: 'four-b.test,WWW.Four-A.test.,four-b.test' });
      expect(res.status).toBe(200);
      expect(res.body.map((r: { domain: string }) => r.domain)).toEqual(['four-b.test', 'four-a.test']);
      // The service label recorded by a crawl is not a subdomain.
      expect(namesOf(res.body[0])).toEqual([
        'a.four-b.test',
        'b.four-b.test',
        'c.four-b.test',
        'd.four-b.test',
      ]);
      // The domain itself counts as one of its names.
      expect(namesOf(res.body[1])).toContain('four-a.test');
    });
  });

  describe('validation', () => {
    let key: string;
    beforeAll(async () => {
      key = await business();
    });

    it.each(['15', '0', '5', '1010', 'ten', '-10'])(
      'refuses limit=%s with 400 naming limit',
      async (limit) => {
        const res = await getSubdomains(service, key, { domains: 'paging.test', limit });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'BAD_REQUEST', parameter: 'limit' });
      },
    );

    it.each([
      ['192.0.2.1', 'IP address'],
      ['[2001:db8::1]', 'IP address'],
      ['not_a_domain', 'not a valid domain'],
      ['exa mple.com', 'not a valid domain'],
      ['co.uk', 'public suffix'],
    ])('refuses domains=%s with 400 naming it', async (domain, why) => {
      const res = await getSubdomains(service, key, { domains: `paging.test,${domain}` });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'BAD_REQUEST', parameter: 'domains' });
      expect(res.body.message).toContain(domain);
      expect(res.body.message).toContain(why);
    });

    it('refuses more than ten domains and a missing domains parameter', async () => {
      const eleven = Array.from({ length: 11 }, (_, i) => `d${i}.test`).join(',');
      const tooMany = await getSubdomains(service, key, { domains: eleven });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.parameter).toBe('domains');
      const missing = await getSubdomains(service, key, {});
      expect(missing.status).toBe(400);
      expect(missing.body.parameter).toBe('domains');
    });

    it('refuses an after value that is not a cursor, or a cursor of another domain', async () => {
      for (const after of ['not a cursor!', 'Zm9v', Buffer.from('x.four-b.test').toString('base64url')]) {
        const res = await getSubdomains(service, key, { domains: 'paging.test', after });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'BAD_REQUEST', parameter: 'after' });
      }
    });

    it('applies the same rules to the GraphQL query', async () => {
      const res = await untilNotRateLimited(service, () =>
        service.graphql(
          key,
          'query($l: Int) { subdomains(domains: ["paging.test"], limit: $l) { domain } }',
          {
            l: 25,
          },
        ),
      );
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: 'limit' });
      const ip = await untilNotRateLimited(service, () =>
        service.graphql(key, '{ subdomains(domains: ["10.0.0.1"]) { domain } }'),
      );
      expect(ip.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: 'domains' });
      expect(ip.body.errors[0].message).toContain('10.0.0.1');
    });
  });

  describe('plan, credits and rate limit', () => {
    it('needs the Business plan (403, nothing charged)', async () => {
      for (const plan of ['small', 'medium', 'large']) {
        const { apiKey } = await service.createAccount({ plan, credits: 100 });
        const res = await getSubdomains(service, apiKey, { domains: 'four-a.test' });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('PLAN_REQUIRED');
        const gql = await service.graphql(apiKey, '{ subdomains(domains: ["four-a.test"]) { domain } }');
        expect(gql.body.errors[0].extensions.code).toBe('PLAN_REQUIRED');
        const balance = await service.request('/v2/credits/balance/', { key: apiKey });
        expect(balance.body).toEqual({ credits: 100 });
      }
    });

    it('charges one credit per ten subdomains returned, rounded up over the whole request', async () => {
      const key = await business(100);
      const cases: Array<[Record<string, string>, number]> = [
        [{ domains: 'charged.test', limit: '10' }, 1], // 10 names
        [{ domains: 'charged.test', limit: '30' }, 3], // 23 names
        [{ domains: 'four-a.test,four-b.test' }, 1], // 4 + 4 names: one credit, not two
        [{ domains: 'empty.test' }, 0], // nothing found: free
      ];
      let balance = 100;
      for (const [params, credits] of cases) {
        const res = await getSubdomains(service, key, params);
        expect(res.status).toBe(200);
        balance -= credits;
        expect(res.headers.get('service-credits-spent')).toBe(String(credits));
        expect(res.headers.get('service-credits-remaining')).toBe(String(balance));
      }
      const after = await service.request('/v2/credits/balance/', { key });
      expect(after.body).toEqual({ credits: balance });
    });

    it('refuses with 403 when the names found cost more than the balance', async () => {
      const key = await business(2);
      const res = await getSubdomains(service, key, { domains: 'charged.test' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'INSUFFICIENT_CREDITS', needed: 3, available: 2 });
    });

    it('limits a key to 5 requests per second (429 with Retry-After)', async () => {
      const key = await business();
      // One request and a burst of twelve in one instant of the limits' clock.
      service.clock.freeze();
      const responses = await (async () => {
        await getSubdomains(service, key, { domains: 'empty.test' });
        return Promise.all(
          Array.from({ length: 12 }, () => service.request('/v2/subdomains/?domains=empty.test', { key })),
        );
      })().finally(() => service.clock.resume());
      const limited = responses.filter((r) => r.status === 429);
      expect(limited).toHaveLength(8);
      expect(limited[0].body.code).toBe('RATE_LIMITED');
      expect(limited[0].headers.get('retry-after')).toBe('1');
      expect(responses.filter((r) => r.status === 200)).toHaveLength(4);
    });
  });
});
