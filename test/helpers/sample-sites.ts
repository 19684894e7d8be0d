import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One-page sites on 127.0.0.1, each on its own port (so each is a site of its own in the index). */
export interface SampleSites {
  /** The sites' front-page URLs, in the order asked for. */
  urls: string[];
  /** Replaces what site `index` serves from now on. */
  serve(index: number, html: string): void;
  close(): Promise<void>;
}

/** A WordPress page as WordPress writes one: a generator meta tag and its wp-content paths. */
export const WORDPRESS_PAGE = `<!doctype html><html><head><title>A blog</title>
<meta name="generator" content="WordPress 6.4.2">
<link rel="stylesheet" href="/wp-content/themes/twentytwentyfour/style.css">
</head><body><h1>Hello</h1><p>Just another WordPress site.</p></body></html>`;

/** A page nothing in the fingerprints knows but a pack can (generator "Acme Pages"). */
export const ACME_PAGE = `<!doctype html><html><head><title>Acme</title>
<meta name="generator" content="Acme Pages 2.1"></head><body><p>Built with Acme.</p></body></html>`;

export async function startSampleSites(pages: readonly string[]): Promise<SampleSites> {
  const html = [...pages];
  const servers: Server[] = [];
  const urls: string[] = [];
  for (let i = 0; i < html.length; i++) {
    const server = createServer((request, response) => {
      if (request.url !== '/') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-powered-by': 'PHP/8.2.1' });
      response.end(html[i]);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  }
  return {
    urls,
    serve: (index, page) => {
      html[index] = page;
    },
    close: async () => {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}
