import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface CompanySite {
  /** "http://127.0.0.1:PORT" */
  url: string;
  port: number;
  /** Paths requested, in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

const FIXTURES = join(__dirname, '../fixtures/enrichment/acme');
const PRODUCTS = 40;

/**
 * A real HTTP server on 127.0.0.1 serving the Acme Robotics company site of the enrichment
 * fixtures: a home page with JSON-LD (Organization, PostalAddress, sameAs, numberOfEmployees,
 * foundingDate), forty product links listed before the company pages, a contact page with phone
 * numbers in text, a German imprint, a team page, an about page linking a leadership page, and a
 * privacy page. Crawls of it show whether the company pages fit in the page cap.
 */
export async function startCompanySite(): Promise<CompanySite> {
  const page = (file: string): string => readFileSync(join(FIXTURES, file), 'utf8');
  const productLinks = Array.from(
    { length: PRODUCTS },
    (_, i) => `<a href="/products/robot-${i + 1}/">Robot ${i + 1}</a>`,
  ).join(' ');
  const pages: Record<string, string> = {
    // The product links come first in the document, as on a shop's home page.
    '/': page('home.html').replace('<header>', `<div class="products">${productLinks}</div><header>`),
    '/contact/': page('contact.html'),
    '/impressum/': page('impressum.html'),
    '/team/': page('team.html'),
    '/about/': page('about.html').replace('</body>', '<a href="/about/leadership/">Leadership</a></body>'),
    '/about/leadership/':
      '<!doctype html><html lang="en"><head><title>Leadership</title></head><body><h3>Grace Hopper</h3><p>Chief Operating Officer</p></body></html>',
    '/privacy/':
      '<!doctype html><html lang="en"><head><title>Privacy</title></head><body><p>Controller: Acme Robotics GmbH</p></body></html>',
    '/products/': `<!doctype html><html lang="en"><head><title>Products</title></head><body>${productLinks}</body></html>`,
  };
  for (let i = 1; i <= PRODUCTS; i++)
    pages[`/products/robot-${i}/`] =
      `<!doctype html><html lang="en"><head><title>Robot ${i}</title></head><body><h1>Robot ${i}</h1><a href="/">Home</a></body></html>`;

  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://site').pathname;
    requests.push(path);
    const body = pages[path];
    if (body === undefined) {
      response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not found</body></html>');
      return;
    }
    response
      .writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-language': path === '/impressum/' ? 'de' : 'en',
      })
      .end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
