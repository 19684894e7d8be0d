import { ObservedHostnameEntity } from '../../../src/storage/entities/observed-hostname.entity';
import { DnsTestServer } from '../../helpers/dns-test-server';
import { ANALYTICS_HOST, RenderedSites, startRenderedSites } from '../../helpers/rendered-sites';
import { startTestService, TestService } from '../../helpers/test-service';

/**
 * Rendering end to end: the real service (RENDER=auto, the browser found on its usual path), real
 * pages on 127.0.0.1, the analytics host name answered by a real DNS server that DNS_SERVERS points
 * the service (and so the browser's guard proxy) at.
 */
let sites: RenderedSites;
let dns: DnsTestServer;
let service: TestService;

beforeAll(async () => {
  sites = await startRenderedSites();
  dns = await DnsTestServer.start();
  dns.add(ANALYTICS_HOST, 'A', '127.0.0.1');
  service = await startTestService({
    RENDER: 'auto',
    DNS_SERVERS: `127.0.0.1:${dns.port}`,
    DNS_TIMEOUT_MS: '500',
    BROWSER_CONCURRENCY: '1',
  });
});
afterAll(async () => {
  await service?.stop();
  await dns?.close();
  await sites?.close();
});

const ANALYZE = `query ($url: String!, $render: RenderChoice) {
  analyze(url: $url, render: $render) {
    state render skipped { slug reason }
    technologies { slug version evidence { kind key matched } }
  }
}`;

interface Analyzed {
  state: string;
  render: string | null;
  skipped: { slug: string; reason: string }[];
  technologies: {
    slug: string;
    version: string;
    evidence: { kind: string; key: string | null; matched: string }[];
  }[];
}

async function key(): Promise<string> {
  // One account per request: the analyze family allows one request a second per key.
  return (await service.createAccount({ plan: 'small', credits: 10 })).apiKey;
}

async function analyzeGraphql(path: string, render?: string): Promise<Analyzed> {
  const res = await service.graphql(await key(), ANALYZE, { url: sites.url + path, render: render ?? null });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.analyze as Analyzed;
}

describe('rendered analysis through /analyze/v1/ and GraphQL', () => {
  it('finds the bundled app’s framework and polyfill version through /analyze/v1/ (auto: an app shell)', async () => {
    const res = await service.request(`/analyze/v1/?url=${encodeURIComponent(`${sites.url}/spa/`)}`, {
      key: await key(),
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    const byName = new Map(res.body.applications.map((a: { name: string }) => [a.name, a]));
    expect(byName.get('Vue.js')).toMatchObject({ name: 'Vue.js' });
    expect(byName.get('core-js')).toMatchObject({ version: '3.51.0' });
  });

  it('shows js evidence and versions of script-loaded libraries over GraphQL', async () => {
    const analysis = await analyzeGraphql('/loader/');
    expect(analysis).toMatchObject({ state: 'ANALYSED', render: 'rendered', skipped: [] });
    const jquery = analysis.technologies.find((t) => t.slug === 'jquery');
    expect(jquery?.version).toBe('4.0.0');
    expect(jquery?.evidence).toEqual(
      expect.arrayContaining([{ kind: 'js', key: 'jQuery.fn.jquery', matched: '4.0.0' }]),
    );
    expect(analysis.technologies.find((t) => t.slug === 'requirejs')?.version).toBe('2.3.8');
  });

  it('detects an analytics product from the XHR calls the page makes to its host name', async () => {
    const before = sites.analyticsRequests.length;
    const analysis = await analyzeGraphql('/tracked/', 'ALWAYS');
    expect(analysis.render).toBe('rendered');
    const amplitude = analysis.technologies.find((t) => t.slug === 'amplitude');
    expect(amplitude?.evidence).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'xhr', matched: '.amplitude.com' })]),
    );
    expect(sites.analyticsRequests.length).toBeGreaterThan(before);
  });

  it('leaves js technologies skipped when the caller turns rendering off', async () => {
    const analysis = await analyzeGraphql('/loader/', 'OFF');
    expect(analysis.render).toBe('off');
    expect(analysis.technologies.find((t) => t.slug === 'jquery')).toBeUndefined();
    expect(analysis.skipped).toEqual(expect.arrayContaining([{ slug: 'jquery', reason: 'js' }]));
    // Its script URL names RequireJS statically; only the browser reads its version.
    expect(analysis.technologies.find((t) => t.slug === 'requirejs')?.version).toBe('');

    const rest = await service.request(
      `/analyze/v1/?url=${encodeURIComponent(`${sites.url}/spa/`)}&render=off`,
      { key: await key() },
    );
    expect(rest.status).toBe(200);
    // The app's bundle states Vue's version where the corrections pack looks (static, no browser);
    // what only a browser reads, Vue's js globals, is not tried.
    expect(rest.body.applications.map((a: { name: string }) => a.name)).toContain('Vue.js');
    const spa = await analyzeGraphql('/spa/', 'OFF');
    expect(spa.render).toBe('off');
    const vue = spa.technologies.find((t) => t.slug === 'vue-js');
    expect(vue?.evidence.map((e) => e.kind)).toEqual(expect.arrayContaining(['scripts']));
    expect(vue?.evidence.map((e) => e.kind)).not.toContain('js');
  });

  it('does not render a page without scripts in auto mode', async () => {
    const seen = sites.requests.length;
    const analysis = await analyzeGraphql('/plain/');
    expect(analysis.render).toBe('not-needed');
    // Only the static fetch asked for the page (a browser would have asked again).
    expect(sites.requests.slice(seen).filter((p) => p === '/plain/')).toHaveLength(1);
  });

  it('renders the first page of a crawl (the path Crawl and Lookup indexing share) and records XHR host names', async () => {
    const crawl = await service.running.services.analyzer.crawl(`${sites.url}/tracked/`, {
      render: 'always',
    });
    expect(crawl).toMatchObject({ ok: true, render: 'rendered' });
    if (!crawl.ok) return;
    expect(crawl.result.technologies.map((t) => t.slug)).toContain('amplitude');
    const recorded = await service.running.services.db.manager.findOneBy(ObservedHostnameEntity, {
      name: ANALYTICS_HOST,
    });
    expect(recorded).toMatchObject({ name: ANALYTICS_HOST, domain: 'amplitude.com' });
  });

  it('finds script-loaded libraries through /v2/lookup/ (analysed now, then answered from the index)', async () => {
    const apiKey = (await service.createAccount({ plan: 'business', credits: 10 })).apiKey;
    const url = `${sites.url}/loader/`;
    const fresh = await service.request(
      `/v2/lookup/?${new URLSearchParams({ urls: url, recursive: 'false', live: 'true' })}`,
      {
        key: apiKey,
      },
    );
    expect(fresh.status).toBe(200);
    const jquery = fresh.body[0].technologies.find((t: { slug: string }) => t.slug === 'jquery');
    expect(jquery.versions).toContain('4.0.0');
    const stored = await service.request(`/v2/lookup/?${new URLSearchParams({ urls: url })}`, {
      key: apiKey,
    });
    expect(stored.body[0].technologies.map((t: { slug: string }) => t.slug)).toContain('jquery');
  });

  it('refuses a render value it does not know, naming the parameter', async () => {
    const res = await service.request(
      `/analyze/v1/?url=${encodeURIComponent(`${sites.url}/plain/`)}&render=sometimes`,
      { key: await key() },
    );
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/render/);
  });
});

describe('without a browser', () => {
  let bare: TestService;
  beforeAll(async () => {
    bare = await startTestService({ RENDER: 'always', BROWSER_EXECUTABLE: '/nonexistent/chromium' });
  });
  afterAll(async () => {
    await bare?.stop();
  });

  it('analyses as before and reports the js technologies as skipped', async () => {
    const { apiKey } = await bare.createAccount({ plan: 'small', credits: 10 });
    const res = await bare.graphql(apiKey, ANALYZE, { url: `${sites.url}/loader/`, render: null });
    expect(res.body.errors).toBeUndefined();
    const analysis = res.body.data.analyze as Analyzed;
    expect(analysis).toMatchObject({ state: 'ANALYSED', render: 'unavailable' });
    expect(analysis.skipped).toEqual(expect.arrayContaining([{ slug: 'jquery', reason: 'js' }]));
    // Its script URL names RequireJS statically; only the browser reads its version.
    expect(analysis.technologies.find((t) => t.slug === 'requirejs')?.version).toBe('');
    expect(analysis.technologies.find((t) => t.slug === 'jquery')).toBeUndefined();

    const { apiKey: restKey } = await bare.createAccount({ plan: 'small', credits: 10 });
    const rest = await bare.request(`/analyze/v1/?url=${encodeURIComponent(`${sites.url}/spa/`)}`, {
      key: restKey,
    });
    expect(rest.status).toBe(200);
    expect(rest.body.status).toBe('success');
  });
});
