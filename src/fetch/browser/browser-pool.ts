import { randomUUID } from 'node:crypto';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type Page,
  type Request,
  type Response,
} from 'playwright-core';
import { GuardProxy } from './guard-proxy';
import type { HostPacer } from '../host-pacing';
import type { HostLookup } from '../private-address-guard';
import { processTree, processTreeRss, type ProcessInfo } from './process-memory';

export interface BrowserSettings {
  /** The Chromium executable (findBrowserExecutable). */
  executablePath: string;
  /** Pages rendered at once (BROWSER_CONCURRENCY): each holds one browser context. */
  concurrency: number;
  /** A context is closed and replaced after this many pages (BROWSER_RECYCLE_PAGES). */
  recyclePages: number;
  /** Deadline of one page: navigation, settling and reading (BROWSER_PAGE_TIMEOUT_MS). */
  pageTimeoutMs: number;
  /** After the load event, wait at most this long for the network to be quiet (BROWSER_SETTLE_MS). */
  settleMs: number;
  /** Memory cap of the browser's processes (BROWSER_MEMORY_MB): beyond it the browser is restarted. */
  memoryMb: number;
  userAgent?: string;
  ignoreHttpsErrors?: boolean;
  allowPrivateTargets?: boolean;
  allowedPrivateRanges?: readonly string[];
  lookup?: HostLookup;
  /**
   * HOST_REQUESTS_PER_SECOND, the crawls' own pacer: every request the page makes (document,
   * scripts, XHR, beacons, redirects followed by the browser) waits for it like the fetcher's.
   */
  hostPacer?: HostPacer;
}

/** What a page showed once rendered. */
export interface RenderedPage {
  /** The URL the page ended on. */
  url: string;
  /** The live DOM serialised after the page settled. */
  html: string;
  /** Values of the js chains asked for: strings, numbers, or booleans for other values. */
  js: Record<string, string | number | boolean>;
  /** Live DOM properties asked for, by selector then property. */
  domProperties: Record<string, Record<string, string | number | boolean>>;
  /** XHR/fetch/beacon request URLs (bounded), and their host names. */
  xhr: string[];
  xhrHosts: string[];
  /** Scripts the page loaded (bodies read for the chain prefilter). */
  scripts: number;
  /** Requests refused by the guard or blocked by type. */
  blocked: number;
}

export interface DomPropertyProbe {
  selector: string;
  properties: string[];
}

export interface RenderRequest {
  url: string;
  /** Chooses the js chains worth reading from what the page loaded (html and script bodies). */
  selectChains: (texts: string[]) => string[];
  /** Live DOM properties to read (selectors whose nodes carry framework properties). */
  domProperties?: readonly DomPropertyProbe[];
  signal?: AbortSignal;
}

export class RenderError extends Error {
  constructor(
    readonly reason: 'timeout' | 'crash' | 'navigation' | 'aborted' | 'unavailable',
    message: string,
  ) {
    super(message);
  }
}

export interface BrowserPoolStats {
  pagesRendered: number;
  browserStarts: number;
  contextsCreated: number;
  crashes: number;
  restartsForMemory: number;
}

/** Resource types never fetched: they cost bandwidth and time and reveal no technology here. */
const BLOCKED_TYPES = new Set(['image', 'media', 'font']);
const XHR_TYPES = new Set(['xhr', 'fetch', 'ping', 'eventsource']);
const MAX_SCRIPTS = 50;
const MAX_SCRIPT_CHARS = 1_000_000;
const MAX_XHR = 200;
const QUIET_MS = 300;

/** Runs in the page: a chain's value as the fingerprint format wants it (absent chains left out). */
function readChains(chains: string[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const chain of chains) {
    let value: unknown = window;
    let found = true;
    for (const part of chain.split('.')) {
      if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
        found = false;
        break;
      }
      try {
        if (!(part in (value as object))) {
          found = false;
          break;
        }
        value = (value as Record<string, unknown>)[part];
      } catch {
        found = false;
        break;
      }
    }
    if (!found || value === undefined || value === null) continue;
    if (typeof value === 'string') out[chain] = value.slice(0, 1000);
    else if (typeof value === 'number') out[chain] = value;
    else out[chain] = Boolean(value);
  }
  return out;
}

/** Runs in the page: the first value of each property on the nodes a selector finds. */
function readDomProperties(
  probes: { selector: string; properties: string[] }[],
): Record<string, Record<string, string | number | boolean>> {
  const out: Record<string, Record<string, string | number | boolean>> = {};
  for (const { selector, properties } of probes) {
    let nodes: Element[] = [];
    try {
      nodes = Array.from(document.querySelectorAll(selector)).slice(0, 200);
    } catch {
      continue;
    }
    for (const property of properties) {
      for (const node of nodes) {
        const value = (node as unknown as Record<string, unknown>)[property];
        if (value === undefined || value === null) continue;
        (out[selector] ??= {})[property] =
          typeof value === 'string'
            ? value.slice(0, 1000)
            : typeof value === 'number'
              ? value
              : Boolean(value);
        break;
      }
    }
  }
  return out;
}

/** The promise's value, or `fallback` when it takes longer than `ms`. */
function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * True when the browser is gone or goes within a moment: a page error caused by the browser dying
 * can reach the caller just before the disconnection is reported.
 */
function disconnectedSoon(browser: Browser, withinMs = 250): Promise<boolean> {
  if (!browser.isConnected()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onGone = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      browser.off('disconnected', onGone);
      resolve(!browser.isConnected());
    }, withinMs);
    browser.once('disconnected', onGone);
  });
}

/** Keeps WebRTC from opening UDP sockets past the proxy (it would bypass the guard). */
const INIT_SCRIPT = `(() => {
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel']) {
    try { delete window[name]; } catch (e) {}
    try { Object.defineProperty(window, name, { value: undefined, configurable: false }); } catch (e) {}
  }
})();`;

interface PooledContext {
  context: BrowserContext;
  pages: number;
  /** The signal of the render using the context now: a request waiting for the pacer stops with it. */
  signal?: AbortSignal;
}

/**
 * Headless Chromium (driven by playwright-core, never downloaded: the executable is the
 * distribution's) as a fetcher: a bounded pool of browser contexts, each reused for a number of
 * pages then replaced, over one browser process started on first use and started again after a
 * crash (the page that was rendering is retried once, so no job is lost) or when its processes
 * grow past the memory cap. All traffic goes through the guard proxy; no downloads, no
 * permissions, no service workers, a throw-away profile.
 */
export class BrowserPool {
  private browser: Promise<Browser> | null = null;
  private readonly proxy: GuardProxy;
  private readonly idle: PooledContext[] = [];
  private readonly waiting: (() => void)[] = [];
  private active = 0;
  private closed = false;
  private restartWanted = false;
  /** On the browser's command line (Chromium ignores it), so its processes can be told from others'. */
  private readonly marker = `--browser-pool-id=${process.pid}-${randomUUID()}`;
  readonly stats: BrowserPoolStats = {
    pagesRendered: 0,
    browserStarts: 0,
    contextsCreated: 0,
    crashes: 0,
    restartsForMemory: 0,
  };

  constructor(readonly settings: BrowserSettings) {
    this.proxy = new GuardProxy({
      allowPrivateTargets: settings.allowPrivateTargets,
      allowedPrivateRanges: settings.allowedPrivateRanges,
      lookup: settings.lookup,
    });
  }

  /** Renders one page; a browser crash during it is retried once on a fresh browser. */
  async render(request: RenderRequest): Promise<RenderedPage> {
    if (this.closed) throw new RenderError('unavailable', 'the browser pool is closed');
    await this.acquireSlot(request.signal);
    try {
      for (let attempt = 0; ; attempt++) {
        const browser = await this.currentBrowser();
        try {
          return await this.renderOnce(browser, request);
        } catch (error) {
          const pageFault =
            error instanceof RenderError && (error.reason === 'timeout' || error.reason === 'aborted');
          const browserGone = !pageFault && (await disconnectedSoon(browser));
          if (browserGone && attempt === 0 && !request.signal?.aborted && !this.closed) {
            this.stats.crashes++;
            continue;
          }
          throw error;
        }
      }
    } finally {
      this.releaseSlot();
    }
  }

  /** Resident memory of the browser's processes (the main process and its children). */
  async memoryBytes(): Promise<number> {
    return processTreeRss(process.pid, this.marker);
  }

  /** The browser's processes (tests kill one to show a crash costs no job). */
  async processes(): Promise<ProcessInfo[]> {
    return processTree(process.pid, this.marker);
  }

  async close(): Promise<void> {
    this.closed = true;
    const browser = this.browser;
    this.browser = null;
    this.idle.length = 0;
    if (browser) await browser.then((b) => b.close()).catch(() => undefined);
    await this.proxy.close();
  }

  private acquireSlot(signal?: AbortSignal): Promise<void> {
    // A browser due for a restart takes no new page: the running ones drain, then it restarts.
    if (this.active < this.settings.concurrency && !this.restartWanted) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        resolve();
      };
      const onAbort = (): void => {
        const at = this.waiting.indexOf(grant);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new RenderError('aborted', 'the analysis was cancelled while waiting for a browser'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private releaseSlot(): void {
    this.active--;
    if (this.restartWanted) {
      if (this.active > 0) return;
      this.restartWanted = false;
      this.stats.restartsForMemory++;
      void this.restart().finally(() => this.wake());
      return;
    }
    this.wake();
  }

  private wake(): void {
    while (this.active < this.settings.concurrency && this.waiting.length > 0 && !this.restartWanted) {
      (this.waiting.shift() as () => void)();
    }
  }

  private async restart(): Promise<void> {
    const old = this.browser;
    this.browser = null;
    this.idle.length = 0;
    if (old) await old.then((b) => b.close()).catch(() => undefined);
  }

  private currentBrowser(): Promise<Browser> {
    if (this.browser) return this.browser;
    const launching = this.launch();
    this.browser = launching;
    launching.catch(() => {
      if (this.browser === launching) this.browser = null;
    });
    return launching;
  }

  private async launch(): Promise<Browser> {
    const proxy = await this.proxy.start();
    const heapMb = Math.max(64, Math.min(512, Math.floor(this.settings.memoryMb / 2)));
    const browser = await chromium.launch({
      executablePath: this.settings.executablePath,
      headless: true,
      chromiumSandbox: false,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: 30_000,
      args: [
        this.marker,
        `--proxy-server=${proxy}`,
        // Chromium sends loopback requests around a proxy unless told not to.
        '--proxy-bypass-list=<-loopback>',
        '--dns-prefetch-disable',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-default-apps',
        '--disable-extensions',
        '--disable-sync',
        '--disable-dev-shm-usage',
        '--no-first-run',
        '--mute-audio',
        '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
        '--webrtc-ip-handling-policy=disable_non_proxied_udp',
        `--js-flags=--max-old-space-size=${heapMb}`,
      ],
    });
    this.stats.browserStarts++;
    browser.on('disconnected', () => {
      this.idle.length = 0;
      if (this.browser && !this.closed) {
        void this.browser.then((current) => {
          if (current === browser) this.browser = null;
        });
      }
    });
    return browser;
  }

  private async takeContext(browser: Browser): Promise<PooledContext> {
    const idle = this.idle.pop();
    if (idle && idle.context.browser() === browser) return idle;
    if (idle) await idle.context.close().catch(() => undefined);
    const context = await browser.newContext({
      acceptDownloads: false,
      serviceWorkers: 'block',
      permissions: [],
      ignoreHTTPSErrors: this.settings.ignoreHttpsErrors ?? true,
      userAgent: this.settings.userAgent,
      javaScriptEnabled: true,
      viewport: { width: 1280, height: 800 },
    });
    await context.addInitScript({ content: INIT_SCRIPT });
    const pooled: PooledContext = { context, pages: 0 };
    const pacer = this.settings.hostPacer;
    await context.route('**/*', async (route) => {
      const request = route.request();
      if (BLOCKED_TYPES.has(request.resourceType())) return route.abort('blockedbyclient');
      if (pacer && /^https?:/i.test(request.url())) {
        try {
          await pacer.wait(new URL(request.url()).host, pooled.signal);
        } catch {
          // The render was cancelled while the request waited: it is not sent.
          return route.abort('aborted').catch(() => undefined);
        }
      }
      // The page may have closed (deadline) while the request waited for the pacer.
      return route.continue().catch(() => undefined);
    });
    this.stats.contextsCreated++;
    return pooled;
  }

  private async giveBack(pooled: PooledContext): Promise<void> {
    pooled.pages++;
    const memory = await this.memoryBytes().catch(() => 0);
    if (memory > this.settings.memoryMb * 1_048_576) this.restartWanted = true;
    if (
      pooled.pages >= this.settings.recyclePages ||
      this.restartWanted ||
      !pooled.context.browser()?.isConnected()
    ) {
      await pooled.context.close().catch(() => undefined);
      return;
    }
    // Nothing of one site may follow the pool to the next: cookies and storage go with the page.
    await pooled.context.clearCookies().catch(() => undefined);
    this.idle.push(pooled);
  }

  private async renderOnce(browser: Browser, request: RenderRequest): Promise<RenderedPage> {
    const pooled = await this.takeContext(browser);
    pooled.signal = request.signal;
    let page: Page | null = null;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      page = await pooled.context.newPage();
      const livePage = page;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(
            new RenderError('timeout', `the page did not render within ${this.settings.pageTimeoutMs} ms`),
          );
          void livePage.close().catch(() => undefined);
        }, this.settings.pageTimeoutMs);
        onAbort = () => {
          reject(new RenderError('aborted', 'the analysis was cancelled'));
          void livePage.close().catch(() => undefined);
        };
        if (request.signal?.aborted) onAbort();
        else request.signal?.addEventListener('abort', onAbort, { once: true });
      });
      deadline.catch(() => undefined);
      return await Promise.race([deadline, this.load(livePage, request)]);
    } finally {
      if (timer) clearTimeout(timer);
      if (onAbort) request.signal?.removeEventListener('abort', onAbort);
      // The page and any window it opened.
      for (const open of pooled.context.pages()) await open.close().catch(() => undefined);
      this.stats.pagesRendered++;
      await this.giveBack(pooled);
    }
  }

  private async load(page: Page, request: RenderRequest): Promise<RenderedPage> {
    const scripts: Promise<string>[] = [];
    const xhr: string[] = [];
    const xhrHosts = new Set<string>();
    let inflight = 0;
    let lastActivity = Date.now();
    let blocked = 0;
    let crashed = false;
    page.on('crash', () => {
      crashed = true;
    });
    page.on('request', (req: Request) => {
      inflight++;
      lastActivity = Date.now();
      if (XHR_TYPES.has(req.resourceType())) {
        try {
          const url = new URL(req.url());
          xhrHosts.add(url.hostname);
          if (xhr.length < MAX_XHR) xhr.push(`${url.host}${url.pathname}${url.search}`.slice(0, 2048));
        } catch {
          // not a URL worth recording
        }
      }
    });
    const done = (): void => {
      inflight = Math.max(0, inflight - 1);
      lastActivity = Date.now();
    };
    page.on('requestfinished', done);
    page.on('requestfailed', (req) => {
      done();
      blocked += /blocked|403|refused/i.test(req.failure()?.errorText ?? '') ? 1 : 0;
    });
    page.on('response', (response) => {
      if (response.request().resourceType() !== 'script' || scripts.length >= MAX_SCRIPTS) return;
      scripts.push(
        response
          .text()
          .then((text) => text.slice(0, MAX_SCRIPT_CHARS))
          .catch(() => ''),
      );
    });

    const started = Date.now();
    // What is left for reading once the page is loaded and settled (content, scripts, evaluation).
    const readingReserveMs = Math.min(1000, this.settings.pageTimeoutMs / 4);
    const loadUntil = started + this.settings.pageTimeoutMs - readingReserveMs;
    let response: Response | null;
    try {
      response = await page.goto(request.url, {
        waitUntil: 'domcontentloaded',
        timeout: this.settings.pageTimeoutMs,
      });
    } catch (error) {
      if (crashed) throw new RenderError('crash', 'the page crashed while loading');
      throw new RenderError(
        'navigation',
        `the page could not be loaded: ${(error as Error).message.split('\n')[0]}`,
      );
    }
    // Only a document that came from no network (data:, about:) has no response.
    if (!response && /^https?:/i.test(request.url)) {
      throw new RenderError('navigation', 'the page gave no response');
    }
    // The load event, if it comes in time: a page with one endless subresource is still read.
    await page
      .waitForLoadState('load', { timeout: Math.max(1, loadUntil - Date.now()) })
      .catch(() => undefined);
    // Settle: until the network has been quiet for a moment, within the settle budget.
    const settleUntil = Math.min(Date.now() + this.settings.settleMs, loadUntil);
    while (Date.now() < settleUntil && (inflight > 0 || Date.now() - lastActivity < QUIET_MS)) {
      await page.waitForTimeout(50);
    }
    const html = await page.content();
    // A script still streaming when reading starts is read as far as it got: not at all.
    const bodies = await Promise.all(scripts.map((body) => within(body, readingReserveMs / 2, '')));
    const chains = request.selectChains([html, ...bodies.filter(Boolean)]);
    const probes = request.domProperties ?? [];
    const [js, domProperties] = await Promise.all([
      chains.length ? page.evaluate(readChains, chains) : Promise.resolve({}),
      probes.length
        ? page.evaluate(
            readDomProperties,
            probes.map((p) => ({ ...p })),
          )
        : Promise.resolve({}),
    ]);
    if (crashed) throw new RenderError('crash', 'the page crashed');
    return {
      url: page.url(),
      html,
      js,
      domProperties,
      xhr,
      xhrHosts: [...xhrHosts],
      scripts: bodies.length,
      blocked,
    };
  }
}
