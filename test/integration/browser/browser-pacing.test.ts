import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BrowserPool, findBrowserExecutable } from '../../../src/fetch/browser';
import { MemoryHostPacer, type HostPacer, type PacerClock } from '../../../src/fetch/host-pacing';
import { eventually } from '../../helpers/eventually';
import { mostInAnyWindow } from '../../helpers/pacing-window';

const executablePath = findBrowserExecutable(process.env.BROWSER_EXECUTABLE);
if (!executablePath) throw new Error('no headless Chromium: run .ci/ensure-browser');

/** A clock the test moves: a pacer's sleep ends only when the test advances to its moment. */
class ManualClock implements PacerClock {
  at = 0;
  private sleepers: { until: number; resolve: () => void }[] = [];

  now = (): number => this.at;

  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const sleeper = { until: this.at + ms, resolve };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', () => {
        this.sleepers = this.sleepers.filter((other) => other !== sleeper);
        reject(signal.reason);
      });
    });

  get sleeping(): number {
    return this.sleepers.length;
  }

  /** To the earliest sleeper's moment, waking every sleeper due then; resolves once they have run on. */
  async advance(): Promise<void> {
    this.at = Math.min(...this.sleepers.map((sleeper) => sleeper.until));
    const due = this.sleepers.filter((sleeper) => sleeper.until <= this.at);
    this.sleepers = this.sleepers.filter((sleeper) => sleeper.until > this.at);
    due.forEach((sleeper) => sleeper.resolve());
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A server whose every request is stamped with the clock's moment on arrival. */
async function stampingServer(clock: ManualClock, body: (path: string) => [string, string]) {
  const arrivals: number[] = [];
  const server: Server = createServer((req, res) => {
    arrivals.push(clock.now());
    const [type, text] = body(req.url ?? '/');
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    arrivals,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('HOST_REQUESTS_PER_SECOND also paces the headless browser', () => {
  let pool: BrowserPool | undefined;
  afterEach(async () => {
    await pool?.close();
  });

  it("holds every request of a rendered page to the host's rate, counted at each host's server", async () => {
    const clock = new ManualClock();
    const released: string[] = [];
    const pacer = new MemoryHostPacer(2, clock);
    const counting: HostPacer = {
      wait: async (host, signal) => {
        await pacer.wait(host, signal);
        released.push(host);
      },
    };
    const assets = await stampingServer(clock, () => [
      'text/javascript',
      'window.loaded = (window.loaded || 0) + 1;',
    ]);
    const scripts = [
      ...Array.from({ length: 6 }, (_, i) => `/s${i}.js`),
      ...Array.from({ length: 3 }, (_, i) => `${assets.origin}/a${i}.js`),
    ];
    const site = await stampingServer(clock, (path) =>
      path === '/'
        ? [
            'text/html',
            `<!doctype html><html><head>${scripts.map((src) => `<script src="${src}"></script>`).join('')}</head><body>paced</body></html>`,
          ]
        : ['text/javascript', 'window.loaded = (window.loaded || 0) + 1;'],
    );
    try {
      pool = new BrowserPool({
        executablePath: executablePath as string,
        concurrency: 1,
        recyclePages: 50,
        pageTimeoutMs: 30_000,
        settleMs: 500,
        memoryMb: 2048,
        allowPrivateTargets: true,
        hostPacer: counting,
      });
      let done = false;
      const rendering = pool
        .render({ url: `${site.origin}/`, selectChains: () => ['loaded'] })
        .finally(() => (done = true));
      // The clock moves only once every request let go has reached its server, so each arrival
      // carries the moment the pacer let it go.
      for (;;) {
        await eventually(
          () =>
            done || (clock.sleeping > 0 && site.arrivals.length + assets.arrivals.length === released.length),
          'the requests let go to arrive, and another to wait for the pacer',
        );
        if (done) break;
        await clock.advance();
      }
      const rendered = await rendering;
      expect(rendered.js.loaded).toBe(9);
      expect(site.arrivals).toHaveLength(7); // the page and its six scripts
      expect(assets.arrivals).toHaveLength(3);
      expect(mostInAnyWindow(site.arrivals)).toBe(2);
      expect(mostInAnyWindow(assets.arrivals)).toBe(2);
      // Each host at its own rate: the second host's requests did not wait for the first's.
      expect(Math.max(...assets.arrivals)).toBeLessThan(Math.max(...site.arrivals));
    } finally {
      await site.close();
      await assets.close();
    }
  });
});
