import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Browser, chromium, Page } from 'playwright-core';
import { ConfigError, loadConfig } from '../../../src/platform/config';
import { chromiumExecutable } from '../../helpers/headless-chromium';
import { startTestService, TestService } from '../../helpers/test-service';

/** A page of a dashboard served from another loopback origin than the API's. */
async function startDashboard(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end('<!doctype html><title>dashboard</title><p>dashboard</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** What a page's fetch saw: the answer and the headers the browser let it read, or the failure. */
interface PageFetch {
  ok: boolean;
  status?: number;
  body?: unknown;
  headers?: Record<string, string | null>;
  error?: string;
}

async function fetchFromPage(
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; cache?: RequestCache },
  read: string[],
): Promise<PageFetch> {
  return page.evaluate(
    async ({ url, init, read }) => {
      try {
        const res = await fetch(url, init);
        const text = await res.text();
        const headers: Record<string, string | null> = {};
        for (const name of read) headers[name] = res.headers.get(name);
        return { ok: true, status: res.status, body: text ? JSON.parse(text) : null, headers };
      } catch (error) {
        return { ok: false, error: String(error) };
      }
    },
    { url, init, read },
  );
}

const READ = ['service-credits-spent', 'service-credits-remaining', 'retry-after', 'x-request-id'];

describe('CORS_ORIGINS: a dashboard on another origin calls the API from a real browser', () => {
  let dashboard: { server: Server; origin: string };
  let service: TestService;
  let browser: Browser;
  let apiKey: string;

  beforeAll(async () => {
    dashboard = await startDashboard();
    service = await startTestService({ CORS_ORIGINS: dashboard.origin, PUBLIC_RATE_LIMIT_PER_MINUTE: '1' });
    ({ apiKey } = await service.createAccount({ plan: 'business', credits: 77 }));
    browser = await chromium.launch({ executablePath: chromiumExecutable() });
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await new Promise((resolve) => dashboard?.server.close(resolve));
  });

  /** OPTIONS requests the service answered 204 (preflights), by its own request counter. */
  const preflightsAnswered = async () =>
    (await service.running.services.metrics.httpRequests.get()).values
      .filter((v) => v.labels.method === 'OPTIONS' && v.labels.status === '204')
      .reduce((sum, v) => sum + v.value, 0);

  const openDashboard = async (origin: string) => {
    // No request interception: Chromium would then answer CORS preflights itself instead of
    // sending them. The page has no subresources and fetches only the two loopback origins.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    return { page, close: () => context.close() };
  };

  it('GET /v2/credits/balance/ with the key (the bodyless lane): the answer and its credit headers', async () => {
    const { page, close } = await openDashboard(dashboard.origin);
    try {
      const answer = await fetchFromPage(
        page,
        `${service.url}/v2/credits/balance/`,
        { headers: { 'x-api-key': apiKey } },
        READ,
      );
      expect(answer).toEqual({
        ok: true,
        status: 200,
        body: { credits: 77 },
        headers: {
          'service-credits-spent': '0',
          'service-credits-remaining': '77',
          'retry-after': null,
          'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
        },
      });
    } finally {
      await close();
    }
  });

  it('POST /v2/lists with a JSON body: preflight answered, the list created', async () => {
    const preflightsBefore = await preflightsAnswered();
    const { page, close } = await openDashboard(dashboard.origin);
    try {
      const answer = await fetchFromPage(
        page,
        `${service.url}/v2/lists`,
        {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ technologies: [{ slug: 'wordpress' }] }),
        },
        READ,
      );
      expect(answer).toMatchObject({ ok: true, status: 200, body: { status: 'Calculating' } });
      expect((answer.body as { id: string }).id).toMatch(/^lst_/);
      // The browser asked the service first (Chromium keeps its preflights from request
      // interception, the service's request counter saw it), and here is what it was told.
      expect(await preflightsAnswered()).toBe(preflightsBefore + 1);
      const preflight = await fetch(`${service.url}/v2/lists`, {
        method: 'OPTIONS',
        headers: {
          origin: dashboard.origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-api-key',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(dashboard.origin);
      expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE');
      expect(preflight.headers.get('access-control-allow-headers')).toBe(
        'content-type, x-api-key, x-request-id',
      );
      expect(preflight.headers.get('access-control-max-age')).toBe('600');
      expect(preflight.headers.get('vary')).toMatch(/Origin/);
    } finally {
      await close();
    }
  });

  it('a rate-limited answer: the page reads Retry-After', async () => {
    const { page, close } = await openDashboard(dashboard.origin);
    try {
      // The public catalogue, one request a minute here; past the browser's cache.
      const path = `${service.url}/v2/technologies/wordpress`;
      const first = await fetchFromPage(page, path, { cache: 'no-store' }, READ);
      expect(first).toMatchObject({ ok: true, status: 200, body: { slug: 'wordpress' } });
      const limited = await fetchFromPage(page, path, { cache: 'no-store' }, READ);
      expect(limited).toMatchObject({ ok: true, status: 429, body: { code: 'RATE_LIMITED' } });
      expect(Number(limited.headers!['retry-after'])).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });

  it('a page on an origin not listed is refused by the browser; the API answers it without CORS headers', async () => {
    const elsewhere = dashboard.origin.replace('127.0.0.1', 'localhost');
    const { page, close } = await openDashboard(elsewhere);
    try {
      const answer = await fetchFromPage(
        page,
        `${service.url}/v2/credits/balance/`,
        { headers: { 'x-api-key': apiKey } },
        READ,
      );
      expect(answer).toEqual({ ok: false, error: 'TypeError: Failed to fetch' });
    } finally {
      await close();
    }
    const direct = await fetch(`${service.url}/v2/credits/balance/`, {
      headers: { 'x-api-key': apiKey, origin: elsewhere },
    });
    expect(direct.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS_ORIGINS unset (the default)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service?.stop());

  it('answers no CORS header and no preflight, as before', async () => {
    const origin = 'http://127.0.0.1:1';
    const res = await service.request('/v2/technologies/', { headers: { origin } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('vary')).toBeNull();
    const preflight = await fetch(`${service.url}/v2/lists`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).not.toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a CORS_ORIGINS entry that is not an origin, naming the setting', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'https://dash.example.com/app' })).toThrow(ConfigError);
    expect(() => loadConfig({ CORS_ORIGINS: 'dash.example.com' })).toThrow(
      /CORS_ORIGINS: "dash.example.com" is not an origin/,
    );
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, http://127.0.0.1:8080' }).CORS_ORIGINS).toEqual([
      'https://a.example',
      'http://127.0.0.1:8080',
    ]);
  });
});

describe('CORS_ORIGINS=*', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ CORS_ORIGINS: '*' });
  });
  afterAll(async () => service?.stop());

  it('lets any origin read the answers', async () => {
    const { apiKey } = await service.createAccount({ credits: 3 });
    const res = await service.request('/v2/credits/balance/', {
      key: apiKey,
      headers: { origin: 'https://anywhere.example' },
    });
    expect(res.body).toEqual({ credits: 3 });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('service-credits-remaining');
    expect(res.headers.get('vary')).toBeNull();
  });
});
