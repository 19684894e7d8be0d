import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Fetch timeouts for these tests: a page that times out on a loaded machine is a failed page, which
 * the timeline rightly does not count as read, and the test would see a change it did not make.
 */
export const GENEROUS_FETCHES = { FETCH_TIMEOUT_MS: '10000', FETCH_CONNECT_TIMEOUT_MS: '5000' };

/** A page a changing site serves: its HTML, or `fail` (an HTTP 500). */
export type ServedPage = string | 'fail';

/**
 * A site on a loopback address whose pages a test replaces between analyses: a CMS upgraded, a
 * library added, a plugin removed, a page that fails. Paths not served answer 404.
 */
export interface ChangingSite {
  url: string;
  /** The site's key in the index (host:port). */
  hostname: string;
  serve(path: string, page: ServedPage): void;
  close(): Promise<void>;
}

export async function startChangingSite(
  pages: Record<string, ServedPage>,
  host = '127.0.0.1',
): Promise<ChangingSite> {
  const served = new Map(Object.entries(pages));
  const server: Server = createServer((request, response) => {
    const page = served.get((request.url ?? '/').split('?')[0]);
    if (page === undefined) return void response.writeHead(404).end();
    if (page === 'fail') return void response.writeHead(500, { 'content-type': 'text/html' }).end('oops');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}/`,
    hostname: `${host}:${port}`,
    serve: (path, page) => void served.set(path, page),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A WordPress home page of a given version, linking to its contact page, with extra head markup. */
export function wordpressHome(version: string, head = ''): string {
  return `<!doctype html><html><head><title>Shop</title>
<meta name="generator" content="WordPress ${version}">
<link rel="stylesheet" href="/wp-content/themes/twentytwentyfour/style.css">${head}
</head><body><h1>Hello</h1><a href="/contact">Contact</a></body></html>`;
}

/** The contact page, with the Contact Form 7 plugin (of a version) or without it. */
export function contactPage(plugin: string | null): string {
  const script = plugin
    ? `<script src="/wp-content/plugins/contact-form-7/includes/js/index.js?ver=${plugin}"></script>`
    : '';
  return `<!doctype html><html><head><title>Contact</title>
<link rel="stylesheet" href="/wp-content/themes/twentytwentyfour/style.css">${script}
</head><body><form><input name="email"></form><a href="/">Home</a></body></html>`;
}

export const JQUERY = '<script src="/js/jquery-3.7.1.min.js"></script>';
export const LODASH = '<script src="/js/lodash.min.js"></script>';
