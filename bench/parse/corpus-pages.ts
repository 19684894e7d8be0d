import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** A page as the parse-cost measure takes it. */
export interface ParsePage {
  url: string;
  html: string;
  headers?: Record<string, string | string[]>;
}

/** The repository root (the source tree or dist/ run from it). */
function repoRoot(): string {
  const candidates = [process.cwd(), resolve(__dirname, '../..'), resolve(__dirname, '../../..')];
  const root = candidates.find((dir) => existsSync(join(dir, 'test/corpus/sites')));
  if (!root) throw new Error(`test/corpus/sites not found from ${candidates.join(' or ')}`);
  return root;
}

/**
 * Every page of test/corpus/sites/<site>/page-N.html (its page-N.json gives the URL and headers)
 * and of test/fixtures/pages (NAME.html + NAME.json), named by path, in a stable order.
 */
export function loadParsePages(): (ParsePage & { name: string })[] {
  const root = repoRoot();
  const pages: (ParsePage & { name: string })[] = [];
  const sites = join(root, 'test/corpus/sites');
  for (const site of readdirSync(sites).sort()) {
    const dir = join(sites, site);
    for (const file of readdirSync(dir).sort()) {
      const m = /^page-(\d+)\.html$/.exec(file);
      if (!m) continue;
      const metaFile = join(dir, `page-${m[1]}.json`);
      const meta = existsSync(metaFile)
        ? (JSON.parse(readFileSync(metaFile, 'utf8')) as { url?: string; headers?: Record<string, string[]> })
        : {};
      pages.push({
        name: `corpus/${site}/${file}`,
        url: meta.url ?? `http://${site}.test/`,
        html: readFileSync(join(dir, file), 'utf8'),
        headers: meta.headers,
      });
    }
  }
  const fixtures = join(root, 'test/fixtures/pages');
  for (const file of readdirSync(fixtures).sort()) {
    if (!file.endsWith('.html')) continue;
    const name = file.slice(0, -'.html'.length);
    const metaFile = join(fixtures, `${name}.json`);
    const meta = existsSync(metaFile)
      ? (JSON.parse(readFileSync(metaFile, 'utf8')) as { url?: string; headers?: Record<string, string[]> })
      : {};
    pages.push({
      name: `fixtures/${file}`,
      url: meta.url ?? `https://${name}.example/`,
      html: readFileSync(join(fixtures, file), 'utf8'),
      headers: meta.headers,
    });
  }
  return pages;
}
