import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DetectionEngine, loadFingerprints, type RenderedInput } from '../../src/detection';
import { BrowserPool, findBrowserExecutable } from '../../src/fetch/browser';
import { crawlSite } from '../../src/fetch/crawler';
import { CORPUS_ROOT, type CapturedSite } from './corpus-format';

/**
 * Captures a running site the way the crawler sees it (start page, then up to --pages pages it links
 * to, each with headers, cookies, html, same-site scripts and stylesheets, robots.txt) into
 * test/corpus/sites/<id>/. The truth file is written by hand afterwards; this never overwrites one.
 *
 *   node dist/bench/corpus/capture.js --id nginx-debian --url http://127.0.0.1:8080/ \
 *     --product nginx --product-version 1.22.1 --source "Debian bookworm package nginx 1.22.1-9" \
 *     --step "apt-get install nginx" --step "nginx -c /tmp/corpus/nginx.conf" [--pages 3] [--render]
 *
 * With --render each page is also rendered in headless Chromium (the service's own browser pool)
 * and what the browser saw (live DOM, the js chains the upstream patterns read, XHR) is kept as the
 * page's `rendered` input, so browser-only detections can be measured later without the site.
 */
async function renderPage(pool: BrowserPool, engine: DetectionEngine, url: string): Promise<RenderedInput> {
  const rendered = await pool.render({
    url,
    selectChains: (texts) => engine.jsChainsFor(texts),
    domProperties: engine.domPropertyProbes(),
  });
  return { html: rendered.html, js: rendered.js, domProperties: rendered.domProperties, xhr: rendered.xhr };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      id: { type: 'string' },
      url: { type: 'string' },
      product: { type: 'string' },
      'product-version': { type: 'string' },
      source: { type: 'string' },
      step: { type: 'string', multiple: true },
      pages: { type: 'string', default: '3' },
      root: { type: 'string', default: CORPUS_ROOT },
      render: { type: 'boolean', default: false },
    },
  });
  for (const name of ['id', 'url', 'product', 'product-version', 'source'] as const)
    if (!values[name]) throw new Error(`--${name} is required`);
  if (!/^[a-z0-9][a-z0-9.-]*$/.test(values.id!))
    throw new Error('--id: lowercase letters, digits, dots, dashes');
  const dir = join(values.root!, values.id!);
  mkdirSync(dir, { recursive: true });
  const crawl = await crawlSite(values.url!, {
    maxPages: Number(values.pages),
    allowPrivateTargets: true,
    deadlineMs: 60_000,
  });
  const engine = new DetectionEngine(loadFingerprints());
  const executablePath = values.render ? findBrowserExecutable(undefined) : null;
  if (values.render && !executablePath)
    throw new Error('--render: no headless Chromium (run .ci/ensure-browser)');
  const pool = executablePath
    ? new BrowserPool({
        executablePath,
        concurrency: 1,
        recyclePages: 50,
        pageTimeoutMs: 20_000,
        settleMs: 1_500,
        memoryMb: 1_024,
        allowPrivateTargets: true,
      })
    : null;
  const pages: CapturedSite['pages'] = [];
  for (const crawled of crawl.pages) {
    if (!crawled.page) {
      process.stderr.write(`skipped ${crawled.url}: ${crawled.error?.message ?? 'no page'}\n`);
      continue;
    }
    const file = `page-${pages.length}`;
    const rendered = pool ? await renderPage(pool, engine, crawled.page.input.url) : undefined;
    const { html, ...rest } = { ...crawled.page.input, ...(rendered ? { rendered } : {}) };
    writeFileSync(join(dir, `${file}.html`), html);
    writeFileSync(join(dir, `${file}.json`), `${JSON.stringify(rest, null, 1)}\n`);
    pages.push({ url: crawled.page.input.url, depth: crawled.depth, file });
  }
  await pool?.close();
  if (pages.length === 0) throw new Error(`nothing captured from ${values.url}`);
  const site: CapturedSite = {
    id: values.id!,
    product: values.product!,
    productVersion: values['product-version']!,
    source: values.source!,
    producedBy: values.step ?? [],
    capturedAt: new Date().toISOString(),
    startUrl: values.url!,
    pages,
  };
  writeFileSync(join(dir, 'site.json'), `${JSON.stringify(site, null, 2)}\n`);
  if (!existsSync(join(dir, 'truth.json')))
    writeFileSync(
      join(dir, 'truth.json'),
      `${JSON.stringify({ evidenced: [], notVisible: [], browserOnly: [], falsePositives: [] }, null, 2)}\n`,
    );
  process.stdout.write(`captured ${pages.length} page(s) into ${dir}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
