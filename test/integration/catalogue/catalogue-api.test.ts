import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DetectedTechnology } from '../../../src/detection';
import { expectMatchesContract, fetchOpenApiDocument, OpenApiDocument } from '../../helpers/openapi-contract';
import { startTestService, TestService } from '../../helpers/test-service';

function detected(slug: string, name: string): DetectedTechnology {
  return {
    slug,
    name,
    categories: [{ id: 1, slug: 'cms', name: 'CMS', priority: 1 }],
    versions: [],
    version: '',
    confidence: 100,
    icon: `${name}.svg`,
    website: '',
    implied: false,
    evidence: [],
  };
}

async function recordSite(
  service: TestService,
  host: string,
  technologies: DetectedTechnology[],
  at = new Date(),
) {
  await service.running.services.siteIndex.record({
    url: `https://${host}/`,
    pages: [{ url: `https://${host}/`, isRoot: true, technologies, languages: ['en'] }],
    technologies,
    hostnames: [host],
    at,
  });
}

describe('the public catalogue on the bundled fingerprints', () => {
  let service: TestService;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    service = await startTestService({ CATALOGUE_CACHE_SECONDS: '0' });
    doc = await fetchOpenApiDocument(service.url);
  });
  afterAll(() => service.stop());

  it('lists every technology without a key, in the documented shape, with and without the trailing slash', async () => {
    const res = await service.request('/v2/technologies/');
    expect(res.status).toBe(200);
    expectMatchesContract(doc, 'GET', '/v2/technologies/', res.status, res.body, res.headers);
    expect(res.body.length).toBeGreaterThan(7000);
    expect(res.headers.get('service-credits-spent')).toBeNull();
    expect(res.headers.get('service-credits-remaining')).toBeNull();
    const wordpress = res.body.find((t: { slug: string }) => t.slug === 'wordpress');
    expect(wordpress).toMatchObject({
      name: 'WordPress',
      icon: 'WordPress.svg',
      website: expect.stringContaining('wordpress.org'),
      cpe: expect.stringMatching(/^cpe:2\.3:a:wordpress:wordpress/),
      categories: expect.arrayContaining([{ id: 1, slug: 'cms', name: 'CMS', priority: 1 }]),
      versioned: true,
      hostnames: 0,
    });
    expect(res.body.some((t: { versioned: boolean }) => !t.versioned)).toBe(true);
    expect(res.body.some((t: { cpe: string | null }) => t.cpe === null)).toBe(true);
    const bare = await service.request('/v2/technologies');
    expect(bare.status).toBe(200);
    expect(bare.body).toEqual(res.body);
  });

  it('serves one technology and one category by slug, both path forms, and 404s unknown slugs with the error body', async () => {
    for (const path of ['/v2/technologies/wordpress/', '/v2/technologies/wordpress']) {
      const res = await service.request(path);
      expect(res.status).toBe(200);
      expectMatchesContract(doc, 'GET', path, res.status, res.body, res.headers);
      expect(res.body.slug).toBe('wordpress');
    }
    for (const path of ['/v2/categories/cms/', '/v2/categories/cms']) {
      const res = await service.request(path);
      expect(res.status).toBe(200);
      expectMatchesContract(doc, 'GET', path, res.status, res.body, res.headers);
      expect(res.body).toEqual({
        id: 1,
        slug: 'cms',
        name: 'CMS',
        priority: 1,
        technologiesCount: expect.any(Number),
        groups: [{ name: 'Content', slug: 'content' }],
      });
      expect(res.body.technologiesCount).toBeGreaterThan(100);
    }
    for (const path of [
      '/v2/technologies/no-such-technology/',
      '/v2/categories/no-such-category',
      '/v2/technologies/usage/',
      '/v2/technologies/WordPress',
    ]) {
      const res = await service.request(path);
      expect(`${path} ${res.status}`).toBe(`${path} 404`);
      expect(res.body).toEqual({
        code: 'NOT_FOUND',
        message: expect.stringMatching(/No (technology|category) with slug/),
        requestId: expect.any(String),
      });
      expectMatchesContract(doc, 'GET', path, res.status, res.body, res.headers);
      expect(res.headers.get('cache-control')).toBeNull();
    }
  });

  it('lists the categories with their groups and technology counts', async () => {
    const res = await service.request('/v2/categories/');
    expect(res.status).toBe(200);
    expectMatchesContract(doc, 'GET', '/v2/categories/', res.status, res.body, res.headers);
    const byslug = new Map(res.body.map((c: { slug: string }) => [c.slug, c]));
    expect(byslug.get('message-boards')).toMatchObject({
      groups: [
        { name: 'Content', slug: 'content' },
        { name: 'Communication', slug: 'communication' },
        { name: 'User generated content', slug: 'user-generated-content' },
      ],
    });
    expect(byslug.get('analytics')).toMatchObject({
      priority: 9,
      groups: [{ name: 'Analytics', slug: 'analytics' }],
    });
  });

  it('answers If-None-Match with 304, and a new count in the index changes the tag', async () => {
    const first = await service.request('/v2/technologies/');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await service.request('/v2/technologies/', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const weak = await service.request('/v2/categories/cms/', {
      headers: { 'if-none-match': `"other", W/${etag}` },
    });
    expect(weak.status).toBe(304);

    await recordSite(service, 'blog-one.example', [detected('wordpress', 'WordPress')]);
    await recordSite(service, 'blog-two.example', [detected('wordpress', 'WordPress')]);
    // Confirmed long ago: not "currently" on the site.
    await recordSite(
      service,
      'old-blog.example',
      [detected('wordpress', 'WordPress')],
      new Date(Date.now() - 200 * 86_400_000),
    );
    const changed = await service.request('/v2/technologies/wordpress/', {
      headers: { 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.hostnames).toBe(2);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('is in GraphQL too, without a key, while other fields still need one', async () => {
    const res = await service.graphql(
      undefined,
      `{ technology(slug: "wordpress") { slug versioned hostnames categories { slug priority } }
         category(slug: "cms") { name technologiesCount groups { slug } }
         categories { slug } }`,
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.technology).toMatchObject({ slug: 'wordpress', versioned: true });
    expect(res.body.data.category.groups).toEqual([{ slug: 'content' }]);
    expect(res.body.data.categories.length).toBeGreaterThan(100);
    const missing = await service.graphql(undefined, '{ technology(slug: "nope") { slug } }');
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const guarded = await service.graphql(undefined, '{ creditBalance { credits } }');
    expect(guarded.body.errors[0].extensions.code).not.toBe('NOT_FOUND');
    expect(guarded.body.data).toBeNull();
  });

  it('documents the four paths without a security requirement, with 304 and 404 responses', () => {
    for (const path of [
      '/v2/technologies/',
      '/v2/technologies/{slug}/',
      '/v2/categories/',
      '/v2/categories/{slug}/',
    ]) {
      const operation = doc.paths[path].get as unknown as {
        security: unknown[];
        responses: Record<string, unknown>;
      };
      expect(operation.security).toEqual([]);
      expect(Object.keys(operation.responses)).toEqual(
        expect.arrayContaining(['200', '304', '429', ...(path.includes('{slug}') ? ['404'] : [])]),
      );
      expect(operation.responses['403']).toBeUndefined();
    }
  });
});

describe('the public catalogue limits', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ PUBLIC_RATE_LIMIT_PER_MINUTE: '3', CATALOGUE_CACHE_SECONDS: '600' });
  });
  afterAll(() => service.stop());

  it('limits each client address, over REST and GraphQL together, 304s included, and leaves keyed calls alone', async () => {
    const first = await service.request('/v2/categories/');
    expect(first.headers.get('cache-control')).toBe('public, max-age=600');
    const etag = first.headers.get('etag')!;
    expect((await service.request('/v2/categories/', { headers: { 'if-none-match': etag } })).status).toBe(
      304,
    );
    expect((await service.graphql(undefined, '{ category(slug: "cms") { id } }')).body.data.category.id).toBe(
      1,
    );
    const limited = await service.request('/v2/technologies/wordpress');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    const graphql = await service.graphql(undefined, '{ categories { id } }');
    expect(graphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    const { apiKey } = await service.createAccount();
    expect((await service.request('/v2/credits/balance/', { key: apiKey })).status).toBe(200);
  });
});

describe('the public catalogue limits behind a trusted proxy (TRUST_PROXY=true)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ PUBLIC_RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: 'true' });
  });
  afterAll(() => service.stop());

  const from = (address: string, spoofed = '203.0.113.9') => ({
    headers: { 'x-forwarded-for': `${spoofed}, ${address}` },
  });

  it('counts each address the proxy saw (the last X-Forwarded-For entry), not the proxy itself', async () => {
    expect((await service.request('/v2/categories/', from('198.51.100.1'))).status).toBe(200);
    expect(
      (await service.request('/v2/technologies/wordpress', from('198.51.100.1', '1.1.1.1'))).status,
    ).toBe(200);
    // The third from that address is refused whatever the client wrote before the proxy's entry.
    expect((await service.request('/v2/categories/', from('198.51.100.1', '2.2.2.2'))).status).toBe(429);
    // Another address behind the same proxy has its own count, over REST and GraphQL.
    expect((await service.request('/v2/categories/', from('198.51.100.2'))).status).toBe(200);
    const graphql = await service.request('/graphql', {
      method: 'POST',
      body: { query: '{ categories { id } }' },
      ...from('198.51.100.2'),
    });
    expect(graphql.body.errors).toBeUndefined();
  });
});

describe('the public catalogue on FINGERPRINTS_PATH', () => {
  let service: TestService;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fingerprints-'));
    writeFileSync(
      join(dir, 'technologies.json'),
      JSON.stringify({
        'Acme CMS': {
          cats: [1],
          icon: 'Acme.svg',
          website: 'https://acme.test',
          cpe: 'cpe:2.3:a:acme:cms:*:*:*:*:*:*:*:*',
          meta: { generator: 'Acme CMS ([\\d.]+)\\;version:\\1' },
        },
        'Acme Pixel': { cats: [2], html: 'acme-pixel' },
      }),
    );
    writeFileSync(
      join(dir, 'categories.json'),
      JSON.stringify({
        1: { name: 'CMS', priority: 1, groups: [7] },
        2: { name: 'Tracking', priority: 9, groups: [7, 99] },
      }),
    );
    writeFileSync(join(dir, 'groups.json'), JSON.stringify({ 7: { name: 'Our Group' } }));
    service = await startTestService({ FINGERPRINTS_PATH: dir });
  });
  afterAll(async () => {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the operator’s technologies, categories and groups', async () => {
    const technologies = await service.request('/v2/technologies/');
    expect(technologies.body).toEqual([
      {
        slug: 'acme-cms',
        name: 'Acme CMS',
        icon: 'Acme.svg',
        website: 'https://acme.test',
        cpe: 'cpe:2.3:a:acme:cms:*:*:*:*:*:*:*:*',
        categories: [{ id: 1, slug: 'cms', name: 'CMS', priority: 1 }],
        versioned: true,
        hostnames: 0,
      },
      {
        slug: 'acme-pixel',
        name: 'Acme Pixel',
        icon: 'default.svg',
        website: '',
        cpe: null,
        categories: [{ id: 2, slug: 'tracking', name: 'Tracking', priority: 9 }],
        versioned: false,
        hostnames: 0,
      },
    ]);
    const categories = await service.request('/v2/categories/');
    expect(categories.body).toEqual([
      {
        id: 1,
        slug: 'cms',
        name: 'CMS',
        priority: 1,
        technologiesCount: 1,
        groups: [{ name: 'Our Group', slug: 'our-group' }],
      },
      {
        id: 2,
        slug: 'tracking',
        name: 'Tracking',
        priority: 9,
        technologiesCount: 1,
        groups: [{ name: 'Our Group', slug: 'our-group' }],
      },
    ]);
  });
});
