import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TwoPageSite {
  /** "http://127.0.0.1:PORT" (its own port, so its own site in the index). */
  url: string;
  close(): Promise<void>;
}

/**
 * A small site whose pages differ in technology, which the shared test sites do not: the home page
 * runs WordPress only, /checkout/ adds Stripe (a script from js.stripe.com) and sets a
 * Service Provider Pro cookie, a fingerprint of confidence 25 (below the denoise threshold).
 */
export async function startTwoPageSite(): Promise<TwoPageSite> {
  const page = (title: string, extra: string) => `<!DOCTYPE html>
<html lang="de"><head><meta charset="utf-8"><meta name="generator" content="WordPress 6.5">
<title>${title}</title></head>
<body><nav><a href="/">Start</a> <a href="/checkout/">Kasse</a></nav>${extra}</body></html>`;
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://site').pathname;
    if (path === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return void response.end(page('Start', '<h1>Willkommen</h1>'));
    }
    if (path === '/checkout/') {
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'set-cookie': 'spp_csrf=abc; Path=/',
      });
      return void response.end(page('Kasse', '<script src="https://js.stripe.com/v3/"></script>'));
    }
    response.writeHead(404, { 'content-type': 'text/html' });
    response.end('<html><body>Not found</body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
