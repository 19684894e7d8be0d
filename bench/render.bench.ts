/**
 * Browser rendering benchmark (issue 13), short and all local: the browser tests' page kinds (an
 * esbuild bundle of Vue + core-js, RequireJS loading jQuery, a page calling an analytics endpoint)
 * on 127.0.0.1. In one run, on the same pages:
 *
 * 1. static-only: fetch + detect, pages/s and p50/p99 per page, one page at a time and at the
 *    browser pool's default concurrency;
 * 2. rendered: fetch + detect + render (RENDER=always) through the pool at its default size
 *    (BROWSER_CONCURRENCY), pages/s, p50/p99 per page, and the peak resident memory of the browser's
 *    processes (sampled every 100 ms from /proc).
 *
 *   npm run bench:render     (RENDER_BENCH_PAGES=N rendered pages, default 30)
 */
import './crawl/quiet-logs';
import { loadavg } from 'node:os';
import { loadConfig } from '../src/platform/config';
import { DetectionEngine, loadFingerprints } from '../src/detection';
import { fetchPage } from '../src/fetch';
import { findBrowserExecutable } from '../src/fetch/browser';
import { buildPageRenderer } from '../src/services/analysis/page-renderer';
import { fetchOptionsOf } from '../src/services/services';
import { startBenchPages } from './render/bench-pages';

const PAGES = Math.max(6, Number(process.env.RENDER_BENCH_PAGES ?? 30));
const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** Runs `work` for `count` items with `concurrency` at once; per-item durations and the wall time. */
async function timed(
  count: number,
  concurrency: number,
  work: (i: number) => Promise<void>,
): Promise<{ perPage: number[]; wallMs: number }> {
  const perPage: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        await work(i);
        perPage.push(performance.now() - t);
      }
    }),
  );
  return { perPage, wallMs: performance.now() - started };
}

function report(label: string, run: { perPage: number[]; wallMs: number }): void {
  const rate = (run.perPage.length / run.wallMs) * 1000;
  console.log(
    `${label.padEnd(34)} ${rate.toFixed(1).padStart(7)} pages/s   p50 ${percentile(run.perPage, 50).toFixed(0).padStart(5)} ms   p99 ${percentile(run.perPage, 99).toFixed(0).padStart(5)} ms`,
  );
}

async function main(): Promise<void> {
  const config = loadConfig({
    ALLOW_PRIVATE_TARGETS: 'true',
    DNS_SERVERS: '127.0.0.1:9',
    DNS_TIMEOUT_MS: '200',
  });
  const executablePath = findBrowserExecutable(config.BROWSER_EXECUTABLE);
  if (!executablePath) throw new Error('no headless Chromium found: run .ci/ensure-browser');
  console.log(
    `load average at start: ${load()}; browser ${executablePath}; pool size ${config.BROWSER_CONCURRENCY}`,
  );
  const pages = await startBenchPages();
  const engine = new DetectionEngine(loadFingerprints());
  const fetchOptions = fetchOptionsOf(config);
  const renderer = buildPageRenderer(engine, 'always', {
    executablePath,
    concurrency: config.BROWSER_CONCURRENCY,
    recyclePages: config.BROWSER_RECYCLE_PAGES,
    pageTimeoutMs: config.BROWSER_PAGE_TIMEOUT_MS,
    settleMs: config.BROWSER_SETTLE_MS,
    memoryMb: config.BROWSER_MEMORY_MB,
    allowPrivateTargets: true,
  });
  const pool = renderer.pool;
  if (!pool) throw new Error('the renderer has no browser pool');
  try {
    const url = (i: number): string => pages.urls[i % pages.urls.length];
    const staticPage = async (i: number): Promise<void> => {
      const page = await fetchPage(url(i), fetchOptions);
      engine.analyze(page.input);
    };
    // Warm both paths (prefilter tables, JIT, the browser's first start) outside the figures.
    for (let i = 0; i < pages.urls.length; i++) await staticPage(i);
    const warm = await fetchPage(url(0), fetchOptions);
    await renderer.analyze(warm, engine.analyze(warm.input), 'always');

    report('static only, 1 at a time', await timed(PAGES * 2, 1, staticPage));
    report(
      `static only, ${config.BROWSER_CONCURRENCY} at a time`,
      await timed(PAGES * 2, config.BROWSER_CONCURRENCY, staticPage),
    );

    let peak = 0;
    let failed = 0;
    const sampler = setInterval(() => {
      void pool.memoryBytes().then((bytes) => {
        peak = Math.max(peak, bytes);
      });
    }, 100);
    const rendered = await timed(PAGES, config.BROWSER_CONCURRENCY, async (i) => {
      const page = await fetchPage(url(i), fetchOptions);
      const outcome = await renderer.analyze(page, engine.analyze(page.input), 'always');
      if (outcome.status !== 'rendered') failed++;
    });
    clearInterval(sampler);
    peak = Math.max(peak, await pool.memoryBytes());
    report(`rendered, pool of ${config.BROWSER_CONCURRENCY}`, rendered);
    console.log(
      `peak RSS of the browser processes: ${(peak / 1_048_576).toFixed(0)} MB; pages not rendered: ${failed}`,
    );
    console.log(`pool: ${JSON.stringify(pool.stats)}`);
    console.log(`load average at end: ${load()}`);
  } finally {
    await renderer.close();
    await pages.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
