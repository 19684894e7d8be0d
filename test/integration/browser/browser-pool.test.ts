import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DetectionEngine, loadFingerprints, type DetectionResult } from '../../../src/detection';
import { BrowserPool, findBrowserExecutable, type BrowserSettings } from '../../../src/fetch/browser';
import { eventually } from '../../helpers/eventually';
import { ANALYTICS_HOST, RenderedSites, startRenderedSites } from '../../helpers/rendered-sites';

const executablePath = findBrowserExecutable(process.env.BROWSER_EXECUTABLE);
if (!executablePath) throw new Error('no headless Chromium: run .ci/ensure-browser');

let engine: DetectionEngine;
let sites: RenderedSites;
const pools: BrowserPool[] = [];

function pool(settings: Partial<BrowserSettings> = {}): BrowserPool {
  const created = new BrowserPool({
    executablePath: executablePath as string,
    concurrency: 2,
    recyclePages: 50,
    pageTimeoutMs: 15_000,
    settleMs: 1000,
    memoryMb: 2048,
    allowPrivateTargets: true,
    lookup: async (host) => (host === ANALYTICS_HOST ? ['127.0.0.1'] : []),
    ...settings,
  });
  pools.push(created);
  return created;
}

beforeAll(async () => {
  engine = new DetectionEngine(loadFingerprints());
  sites = await startRenderedSites();
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await sites.close();
});

/** Renders a page and detects from the static HTML the browser started from plus what it saw. */
async function renderAndDetect(browsers: BrowserPool, path: string): Promise<DetectionResult> {
  const url = sites.url + path;
  const html = await (await fetch(url)).text();
  const rendered = await browsers.render({
    url,
    selectChains: (texts) => engine.jsChainsFor(texts),
    domProperties: engine.domPropertyProbes(),
  });
  return engine.analyze({ url, html, rendered });
}

function found(result: DetectionResult, slug: string) {
  return result.technologies.find((t) => t.slug === slug);
}

describe('rendering real pages in headless Chromium', () => {
  const browsers = (): BrowserPool => pools[0] ?? pool();

  it('finds the framework and polyfill of an app bundled by esbuild from npm packages', async () => {
    const url = `${sites.url}/spa/`;
    const staticOnly = engine.analyze({ url, html: await (await fetch(url)).text() });
    expect(found(staticOnly, 'vue-js')).toBeUndefined();
    expect(found(staticOnly, 'core-js')).toBeUndefined();

    const result = await renderAndDetect(browsers(), '/spa/');
    const vue = found(result, 'vue-js');
    expect(vue?.evidence).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'js', key: '__VUE__' })]),
    );
    const coreJs = found(result, 'core-js');
    expect(coreJs?.version).toBe('3.51.0');
    expect(coreJs?.evidence).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'js',
          key: '__core-js_shared__.versions.0.version',
          matched: '3.51.0',
        }),
      ]),
    );
    expect(result.skipped).toEqual([]);
  });

  it('reads only the chains the prefilter selects from what the page loaded', () => {
    const chains = engine.jsChainsFor(['<html><body><script>window.jQuery = {}</script></body></html>']);
    expect(chains).toContain('jQuery.fn.jquery');
    expect(chains).not.toContain('Vue.version');
    expect(chains.length).toBeLessThan(200);
  });

  it('finds libraries that only a script loader brings in, with their versions', async () => {
    const result = await renderAndDetect(browsers(), '/loader/');
    expect(found(result, 'jquery')).toMatchObject({ version: '4.0.0' });
    expect(found(result, 'jquery')?.evidence).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'js', key: 'jQuery.fn.jquery', matched: '4.0.0' }),
      ]),
    );
    expect(found(result, 'requirejs')).toMatchObject({ version: '2.3.8' });
  });

  it('records XHR and fetch calls to an analytics host name and matches xhr patterns on them', async () => {
    const before = sites.analyticsRequests.length;
    const url = `${sites.url}/tracked/`;
    const rendered = await browsers().render({ url, selectChains: (texts) => engine.jsChainsFor(texts) });
    expect(rendered.xhrHosts).toEqual([ANALYTICS_HOST]);
    expect(rendered.xhr).toEqual(
      expect.arrayContaining([
        `${ANALYTICS_HOST}:${sites.analyticsPort}/2/httpapi`,
        `${ANALYTICS_HOST}:${sites.analyticsPort}/ping?v=1`,
      ]),
    );
    // The calls really went out through the guard proxy, to the name's (mapped) address.
    expect(sites.analyticsRequests.slice(before)).toEqual(
      expect.arrayContaining([`POST ${ANALYTICS_HOST}:${sites.analyticsPort} /2/httpapi`]),
    );
    const result = engine.analyze({ url, html: rendered.html, rendered });
    expect(found(result, 'amplitude')?.evidence).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'xhr', matched: '.amplitude.com' })]),
    );
  });

  it('never fetches images, media or fonts', async () => {
    const rendered = await browsers().render({
      url: `${sites.url}/heavy-assets/`,
      selectChains: () => ['pageReady'],
    });
    expect(rendered.js).toEqual({ pageReady: true });
    expect(sites.requests.filter((p) => p.startsWith('/asset/'))).toEqual([]);
  });

  it('gives up on a page at its deadline and keeps working', async () => {
    const quick = pool({ pageTimeoutMs: 1500, concurrency: 1 });
    await expect(quick.render({ url: `${sites.url}/slow/`, selectChains: () => [] })).rejects.toMatchObject({
      reason: 'timeout',
    });
    const next = await quick.render({ url: `${sites.url}/heavy-assets/`, selectChains: () => ['pageReady'] });
    expect(next.js).toEqual({ pageReady: true });
  });

  it('still reads a page whose load event never comes, before its deadline', async () => {
    const quick = pool({ pageTimeoutMs: 3000, concurrency: 1 });
    const rendered = await quick.render({
      url: `${sites.url}/endless-async/`,
      selectChains: () => ['partial'],
    });
    expect(rendered.js).toEqual({ partial: 'yes' });
  });

  it('recycles a context after its page budget', async () => {
    const recycling = pool({ recyclePages: 2, concurrency: 1 });
    for (let i = 0; i < 3; i++)
      await recycling.render({ url: `${sites.url}/plain/`, selectChains: () => [] });
    expect(recycling.stats).toMatchObject({ pagesRendered: 3, contextsCreated: 2, browserStarts: 1 });
  });

  it('restarts the browser once its processes pass the memory cap, without failing a page', async () => {
    const capped = pool({ memoryMb: 128, concurrency: 2 });
    const renders = [0, 1, 2].map(() =>
      capped.render({ url: `${sites.url}/heavy-assets/`, selectChains: () => ['pageReady'] }),
    );
    for (const rendered of await Promise.all(renders)) expect(rendered.js).toEqual({ pageReady: true });
    expect(capped.stats.restartsForMemory).toBeGreaterThanOrEqual(1);
    expect(capped.stats.browserStarts).toBeGreaterThanOrEqual(2);
  });

  it('restarts a crashed browser and finishes the page it was rendering', async () => {
    const crashing = pool({ concurrency: 1 });
    await crashing.render({ url: `${sites.url}/plain/`, selectChains: () => [] });
    const seen = sites.requests.length;
    const rendering = crashing.render({
      url: `${sites.url}/delayed/`,
      selectChains: () => ['delayedLoaded'],
    });
    // Once the browser is waiting for the late script, kill every process of it.
    await eventually(
      () => sites.requests.slice(seen).includes('/delayed.js'),
      'the request of the late script',
    );
    const processes = await crashing.processes();
    expect(processes.length).toBeGreaterThan(0);
    for (const p of processes) process.kill(p.pid, 'SIGKILL');
    const rendered = await rendering;
    expect(rendered.js).toEqual({ delayedLoaded: 'yes' });
    expect(crashing.stats).toMatchObject({ crashes: 1, browserStarts: 2 });
  });
});

describe('the private-address guard in the browser', () => {
  let target: Server;
  let hits: string[];
  beforeAll(async () => {
    hits = [];
    target = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/hop') {
        // A redirect to a name only the guard proxy can resolve: the hop must go through it.
        const port = (target.address() as AddressInfo).port;
        res.writeHead(302, {
          location: `http://hidden.test:${port}/landed`,
          'access-control-allow-origin': '*',
        });
        res.end();
        return;
      }
      res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' });
      res.end('secret');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    target.closeAllConnections();
    await new Promise<void>((resolve) => target.close(() => resolve()));
  });

  /** A page (no network of its own) that tries every way to reach the loopback server and metadata. */
  function probePage(): string {
    const port = (target.address() as AddressInfo).port;
    const urls = [
      `http://127.0.0.1:${port}/fetch`,
      `http://rebind.test:${port}/name`,
      `http://[::ffff:127.0.0.1]:${port}/mapped`,
      `http://169.254.169.254:${port}/metadata`,
    ];
    const script = `
      window.guardResult = 'pending';
      Promise.all(${JSON.stringify(urls)}.map(function (u) {
        return fetch(u).then(function (r) { return r.text(); }).then(function (t) { return u + '=' + t; }, function () { return u + '=refused'; });
      })).then(function (all) { window.guardResult = all.join(' '); });
      var s = document.createElement('script'); s.src = 'http://127.0.0.1:${port}/script'; document.head.appendChild(s);
      var f = document.createElement('iframe'); f.src = 'http://127.0.0.1:${port}/frame'; document.body.appendChild(f);
      try { new WebSocket('ws://127.0.0.1:${port}/socket'); } catch (e) {}`;
    return `data:text/html,${encodeURIComponent(`<html><body><p>probe</p><script>${script}</script></body></html>`)}`;
  }
  const lookup = async (host: string): Promise<string[]> =>
    host === 'rebind.test' || host === 'hidden.test' ? ['127.0.0.1'] : [];

  it('lets nothing of the page reach loopback or link-local addresses when private targets are not allowed', async () => {
    const guarded = pool({ allowPrivateTargets: false, lookup });
    const rendered = await guarded.render({ url: probePage(), selectChains: () => ['guardResult'] });
    expect(String(rendered.js.guardResult)).not.toContain('secret');
    expect(String(rendered.js.guardResult).match(/=refused/g)).toHaveLength(4);
    expect(hits).toEqual([]);
  });

  it('reaches them when private targets are allowed (the control: the same page is not blocked by Chromium)', async () => {
    const open = pool({ allowPrivateTargets: true, lookup });
    const rendered = await open.render({ url: probePage(), selectChains: () => ['guardResult'] });
    expect(String(rendered.js.guardResult)).toContain('/fetch=secret');
    expect(String(rendered.js.guardResult)).toContain('/name=secret');
    expect(hits).toEqual(expect.arrayContaining(['/fetch', '/name', '/script', '/frame']));
  });

  it('sends redirect hops through the proxy too (the target name resolves only there)', async () => {
    const port = (target.address() as AddressInfo).port;
    const open = pool({ allowPrivateTargets: true, lookup });
    const script = `window.hop = 'pending'; fetch('http://rebind.test:${port}/hop').then(function (r) { return r.text(); }).then(function (t) { window.hop = t; }, function () { window.hop = 'failed'; });`;
    const url = `data:text/html,${encodeURIComponent(`<html><body><script>${script}</script></body></html>`)}`;
    const before = hits.length;
    const rendered = await open.render({ url, selectChains: () => ['hop'] });
    expect(rendered.js).toEqual({ hop: 'secret' });
    expect(hits.slice(before)).toEqual(['/hop', '/landed']);
  });
});
