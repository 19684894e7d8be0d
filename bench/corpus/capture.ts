import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { crawlSite } from '../../src/fetch/crawler';
import { CORPUS_ROOT, type CapturedSite } from './corpus-format';

/**
 * Captures a running site the way the crawler sees it (start page, then up to --pages pages it links
 * to, each with headers, cookies, html, same-site scripts and stylesheets, robots.txt) into
 * test/corpus/sites/<id>/. The truth file is written by hand afterwards; this never overwrites one.
 *
 *   node dist/bench/corpus/capture.js --id nginx-debian --url http://127.0.0.1:8080/ \
 *     --product nginx --product-version 1.22.1 --source "Debian bookworm package nginx 1.22.1-9" \
 *     --step "apt-get install nginx" --step "nginx -c /tmp/corpus/nginx.conf" [--pages 3]
 */
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
  const pages: CapturedSite['pages'] = [];
  for (const crawled of crawl.pages) {
    if (!crawled.page) {
      process.stderr.write(`skipped ${crawled.url}: ${crawled.error?.message ?? 'no page'}\n`);
      continue;
    }
    const file = `page-${pages.length}`;
    const { html, ...rest } = crawled.page.input;
    writeFileSync(join(dir, `${file}.html`), html);
    writeFileSync(join(dir, `${file}.json`), `${JSON.stringify(rest, null, 1)}\n`);
    pages.push({ url: crawled.page.input.url, depth: crawled.depth, file });
  }
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
