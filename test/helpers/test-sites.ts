import { createServer as createHttpServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { generate } from 'selfsigned';

/** One request a test site received, for assertions (what was fetched, with which headers). */
export interface SiteRequest {
  path: string;
  host: string;
  userAgent: string;
  cookie: string;
}

export interface TestSites {
  /** Base of the plain-HTTP sites, "http://127.0.0.1:PORT". */
  httpUrl: string;
  /** Base of the HTTPS site with a self-signed certificate, "https://127.0.0.1:PORT". */
  httpsUrl: string;
  /** httpUrl + path. */
  url(path: string): string;
  /** What the self-signed certificate says, to compare with what a client reads. */
  certificate: { issuer: string; subjectAltNames: string[] };
  /** Every request received, in arrival order. */
  requests: SiteRequest[];
  /** Most requests the sites were answering at the same time (blog posts answer after a short delay). */
  peakConcurrency(): number;
  /** Paths of the multi-page WordPress-like site (crawlable from "/"). */
  sitePages: string[];
  close(): Promise<void>;
}

/** Blog posts linked from /blog/: more than a crawl's 25-page limit, so the limit is what stops it. */
const BLOG_POSTS = 30;
const POST_DELAY_MS = 15;
const BIG_PAGE_BYTES = 20 * 1024 * 1024;
const BOMB_BYTES = 64 * 1024 * 1024;
const CERT_ISSUER = 'Test Sites Authority';
const CERT_NAMES = ['secure.test', 'www.secure.test', '*.cdn.secure.test'];

/**
 * Real HTTP(S) servers on 127.0.0.1 ephemeral ports serving the situations a fetcher meets:
 *
 * - a multi-page WordPress-like site at "/" (headers, cookies, same-site and third-party scripts, a
 *   stylesheet, robots.txt disallowing /private/, links between pages, a PDF link, 30 blog posts);
 * - /redirect/start (301 → 302 relative → 307 → /about/, setting a cookie on the way), /loop/a ↔ /loop/b,
 *   /cookie-check (redirects and answers 200 only if the cookie came back), /redirect-to-metadata;
 * - /error (500), /missing (404), /slow (never answers), /api/data.json (not HTML), /empty;
 * - /charset/windows-1251 (meta charset), /charset/shift-jis (meta http-equiv), /charset/header
 *   (ISO-8859-1 in Content-Type, contradicting meta), /no-content-type;
 * - /big (20 MB), /compressed/gzip|br|deflate, /gzip-bomb (64 MB of HTML inflated from ~64 KB);
 * - an HTTPS site with a certificate generated at start (issuer "Test Sites Authority").
 *
 * Hosts: the site answers for any Host header, so tests can map names to 127.0.0.1 with a lookup.
 */
export async function startTestSites(): Promise<TestSites> {
  const requests: SiteRequest[] = [];
  const pending = new Set<ServerResponse>();
  let active = 0;
  let peak = 0;
  const bomb = gzipSync(
    Buffer.concat([Buffer.from('<!doctype html><html><body>'), Buffer.alloc(BOMB_BYTES, 0x20)]),
    {
      level: 9,
    },
  );

  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    const url = new URL(request.url ?? '/', 'http://site');
    requests.push({
      path: url.pathname + url.search,
      host: request.headers.host ?? '',
      userAgent: request.headers['user-agent'] ?? '',
      cookie: request.headers.cookie ?? '',
    });
    active++;
    peak = Math.max(peak, active);
    response.once('close', () => active--);
    route(url, request, response, { bomb, pending });
  };

  const http = createHttpServer(handler);
  const { cert, private: key } = await generate(
    [
      { name: 'commonName', value: CERT_NAMES[0] },
      { name: 'organizationName', value: CERT_ISSUER },
    ],
    {
      keyType: 'ec',
      curve: 'P-256',
      extensions: [
        {
          name: 'subjectAltName',
          altNames: [
            ...CERT_NAMES.map((value) => ({ type: 2 as const, value })),
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    },
  );
  const https = createHttpsServer({ cert, key }, handler);
  const httpPort = await listen(http);
  const httpsPort = await listen(https);
  const httpUrl = `http://127.0.0.1:${httpPort}`;

  return {
    httpUrl,
    httpsUrl: `https://127.0.0.1:${httpsPort}`,
    url: (path) => `${httpUrl}${path}`,
    certificate: { issuer: CERT_ISSUER, subjectAltNames: CERT_NAMES },
    requests,
    peakConcurrency: () => peak,
    sitePages: ['/', '/about/', '/blog/', '/contact/', '/shop/', ...blogPosts()],
    close: async () => {
      for (const response of pending) response.destroy();
      await Promise.all([close(http), close(https)]);
    },
  };
}

function blogPosts(): string[] {
  return Array.from({ length: BLOG_POSTS }, (_, index) => `/blog/post-${index + 1}/`);
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

interface RouteContext {
  bomb: Buffer;
  pending: Set<ServerResponse>;
}

function route(url: URL, request: IncomingMessage, response: ServerResponse, context: RouteContext): void {
  const path = url.pathname;
  const page = WORDPRESS_PAGES[path] ?? (/^\/blog\/post-\d+\/$/.test(path) ? blogPost(path) : undefined);
  if (page !== undefined && path.startsWith('/blog/post-')) {
    // A short delay so that concurrent requests overlap and a concurrency bound is observable.
    setTimeout(() => sendWordPress(response, page, false), POST_DELAY_MS);
    return;
  }
  if (page !== undefined) return sendWordPress(response, page, path === '/');

  switch (path) {
    case '/robots.txt':
      return send(response, 200, { 'content-type': 'text/plain' }, ROBOTS_TXT);
    case '/wp-includes/js/jquery/jquery.min.js':
      return send(response, 200, { 'content-type': 'application/javascript' }, JQUERY_JS);
    case '/wp-content/themes/flavor/assets/theme.js':
      return send(
        response,
        200,
        { 'content-type': 'application/javascript' },
        'window.flavorTheme={version:"2.1.0"};',
      );
    case '/wp-content/themes/flavor/style.css':
      return send(response, 200, { 'content-type': 'text/css' }, THEME_CSS);
    case '/wp-content/uploads/brochure.pdf':
      return send(response, 200, { 'content-type': 'application/pdf' }, '%PDF-1.4 not a page');
    case '/redirect/start':
      return send(response, 301, { location: '/redirect/step-2', 'set-cookie': 'hop=1; Path=/' }, '');
    case '/redirect/step-2':
      return send(response, 302, { location: 'step-3' }, '');
    case '/redirect/step-3':
      return send(response, 307, { location: `http://${request.headers.host}/about/` }, '');
    case '/loop/a':
      return send(response, 302, { location: '/loop/b' }, '');
    case '/loop/b':
      return send(response, 302, { location: '/loop/a' }, '');
    case '/cookie-check':
      return send(
        response,
        302,
        { location: '/cookie-check/verify', 'set-cookie': 'session_check=ok; Path=/; HttpOnly' },
        '',
      );
    case '/cookie-check/verify':
      return /session_check=ok/.test(request.headers.cookie ?? '')
        ? send(
            response,
            200,
            { 'content-type': 'text/html' },
            '<!doctype html><html><body>cookie ok</body></html>',
          )
        : send(response, 403, { 'content-type': 'text/html' }, '<html><body>cookies required</body></html>');
    case '/redirect-to-metadata':
      return send(response, 302, { location: 'http://169.254.169.254/latest/meta-data/' }, '');
    case '/error':
      return send(
        response,
        500,
        { 'content-type': 'text/html' },
        '<html><body>Internal Server Error</body></html>',
      );
    case '/missing':
      return send(response, 404, { 'content-type': 'text/html' }, '<html><body>Not found</body></html>');
    case '/slow':
      // Never answers: the client's timeout must end the request (close() destroys it).
      context.pending.add(response);
      return;
    case '/api/data.json':
      return send(response, 200, { 'content-type': 'application/json' }, '{"ok":true}');
    case '/empty':
      return send(response, 200, { 'content-type': 'text/html' }, '');
    case '/no-content-type':
      return send(
        response,
        200,
        {},
        '<!DOCTYPE html><html lang="de"><head><title>Ohne Typ</title></head><body>Hallo</body></html>',
      );
    case '/charset/windows-1251':
      return send(
        response,
        200,
        { 'content-type': 'text/html' },
        encodeLegacy(CYRILLIC_PAGE, 'windows-1251'),
      );
    case '/charset/shift-jis':
      return send(response, 200, { 'content-type': 'text/html' }, encodeLegacy(JAPANESE_PAGE, 'shift_jis'));
    case '/charset/header':
      // The header (ISO-8859-1) wins over the page's wrong meta (UTF-8): "café" is one byte 0xE9 here.
      return send(
        response,
        200,
        { 'content-type': 'text/html; charset=ISO-8859-1' },
        Buffer.from(
          '<html><head><meta charset="utf-8"><title>caf\u00e9</title></head><body>caf\u00e9</body></html>',
          'latin1',
        ),
      );
    case '/big':
      return sendBig(response);
    case '/compressed/gzip':
      return send(
        response,
        200,
        { 'content-type': 'text/html', 'content-encoding': 'gzip' },
        gzipSync(COMPRESSED_PAGE),
      );
    case '/compressed/br':
      return send(
        response,
        200,
        { 'content-type': 'text/html', 'content-encoding': 'br' },
        brotliCompressSync(COMPRESSED_PAGE),
      );
    case '/compressed/deflate':
      return send(
        response,
        200,
        { 'content-type': 'text/html', 'content-encoding': 'deflate' },
        deflateSync(COMPRESSED_PAGE),
      );
    case '/compressed/corrupt':
      return send(
        response,
        200,
        { 'content-type': 'text/html', 'content-encoding': 'gzip' },
        Buffer.from('not gzip at all'),
      );
    case '/gzip-bomb':
      return send(response, 200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }, context.bomb);
    default:
      return send(response, 404, { 'content-type': 'text/html' }, '<html><body>Not found</body></html>');
  }
}

function send(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string | Buffer,
): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  response.writeHead(status, { ...headers, 'content-length': String(bytes.length) });
  response.end(bytes);
}

function sendBig(response: ServerResponse): void {
  const chunk = Buffer.from(`<p>${'lorem ipsum dolor sit amet '.repeat(36)}</p>\n`);
  let sent = 0;
  response.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(BIG_PAGE_BYTES),
  });
  const head = '<!doctype html><html><head><title>Big</title></head><body>';
  response.write(head);
  sent += Buffer.byteLength(head);
  const pump = (): void => {
    while (sent < BIG_PAGE_BYTES) {
      const piece = chunk.subarray(0, Math.min(chunk.length, BIG_PAGE_BYTES - sent));
      sent += piece.length;
      if (!response.write(piece)) return void response.once('drain', pump);
    }
    response.end();
  };
  response.on('close', () => (sent = BIG_PAGE_BYTES));
  pump();
}

/** Encodes text in a legacy charset: node has no encoder for these, so map through TextDecoder's table. */
function encodeLegacy(text: string, charset: string): Buffer {
  const decoder = new TextDecoder(charset);
  const table = new Map<string, number[]>();
  for (let first = 0; first < 256; first++) {
    const single = decoder.decode(Uint8Array.of(first));
    if (single.length === 1 && single !== '\ufffd' && !table.has(single)) table.set(single, [first]);
    if (first >= 0x81) {
      for (let second = 0x40; second < 0xfd; second++) {
        const double = decoder.decode(Uint8Array.of(first, second));
        if (double.length === 1 && double !== '\ufffd' && !table.has(double))
          table.set(double, [first, second]);
      }
    }
  }
  const bytes: number[] = [];
  for (const char of text) {
    const encoded = table.get(char);
    if (!encoded) throw new Error(`cannot encode ${char} in ${charset}`);
    bytes.push(...encoded);
  }
  return Buffer.from(bytes);
}

interface WordPressPage {
  title: string;
  body: string;
}

const NAV = `<nav><a href="/">Home</a> <a href="/about/">About</a> <a href="/blog/">Blog</a>
<a href="/contact/">Contact</a> <a href="/shop/">Shop</a> <a href="/private/admin-notes/">Notes</a>
<a href="/wp-content/uploads/brochure.pdf">Brochure (PDF)</a> <a href="/about/#team">Team</a>
<a href="https://twitter.com/flavorshop">Twitter</a> <a href="mailto:hello@flavorshop.co.uk">Mail</a></nav>`;

const WORDPRESS_PAGES: Record<string, WordPressPage> = {
  '/': {
    title: 'Flavor Shop &#8211; Fresh spices',
    body: `<h1>Fresh spices</h1><p>Welcome to our shop.</p>
<img src="/wp-content/uploads/2024/01/hero.jpg" srcset="https://images.flavorcdn.com/hero-2x.jpg 2x" alt="">
<iframe src="https://www.youtube.com/embed/abc123"></iframe>
<form action="https://newsletter.mailservice.io/subscribe" method="post"><input name="email"></form>`,
  },
  '/about/': { title: 'About &#8211; Flavor Shop', body: '<h1 id="team">About us</h1><p>Since 1999.</p>' },
  '/blog/': {
    title: 'Blog &#8211; Flavor Shop',
    body: `<h1>Blog</h1><ul>${blogPosts()
      .map((post) => `<li><a href="${post}">${post}</a></li>`)
      .join('')}</ul>`,
  },
  '/contact/': {
    title: 'Contact &#8211; Flavor Shop',
    body: '<h1>Contact</h1><a href="/?utm_source=contact">Home</a>',
  },
  '/shop/': { title: 'Shop &#8211; Flavor Shop', body: '<h1>Shop</h1><a href="/shop/?b=2&a=1">Sorted</a>' },
  '/private/admin-notes/': { title: 'Private', body: '<h1>Robots must not see this</h1>' },
};

function blogPost(path: string): WordPressPage {
  return {
    title: `${path} &#8211; Flavor Shop`,
    body: `<article><h1>${path}</h1><a href="/blog/">Back</a></article>`,
  };
}

function sendWordPress(response: ServerResponse, page: WordPressPage, isHome: boolean): void {
  const html = `<!DOCTYPE html>
<html lang="en-US">
<head>
<meta charset="UTF-8">
<meta name="generator" content="WordPress 6.4.2">
<meta property="og:locale" content="en_US">
<title>${page.title}</title>
<link rel="stylesheet" id="flavor-style-css" href="/wp-content/themes/flavor/style.css?ver=2.1.0" media="all">
<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter">
<link rel="https://api.w.org/" href="/wp-json/">
<script src="/wp-includes/js/jquery/jquery.min.js?ver=3.7.1" id="jquery-core-js"></script>
<script src="/wp-content/themes/flavor/assets/theme.js?ver=2.1.0"></script>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-TEST123"></script>
</head>
<body class="home page-template-default">
${NAV}
${page.body}
<!-- <a href="/commented-out/">not a link</a> -->
<script>var x = '<a href="/in-script/">';</script>
</body>
</html>`;
  const headers: Record<string, string> = {
    'content-type': 'text/html; charset=UTF-8',
    server: 'nginx/1.25.3',
    'x-powered-by': 'PHP/8.2.12',
    link: '<https://api.flavorshop.example/wp-json/>; rel="https://api.w.org/"',
    'content-language': 'en',
    'content-security-policy':
      "default-src 'self'; script-src 'self' 'nonce-abc' https://www.googletagmanager.com *.stripe.com; img-src data: https://images.flavorcdn.com:443/img/",
    'access-control-allow-origin': 'https://app.flavorshop.example',
  };
  response.setHeader('set-cookie', [
    'wordpress_test_cookie=WP%20Cookie%20check; path=/',
    `PHPSESSID=${isHome ? 'home' : 'page'}session; path=/; HttpOnly`,
  ]);
  send(response, 200, headers, html);
}

const ROBOTS_TXT = `User-agent: *
Disallow: /private/
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php

Sitemap: /wp-sitemap.xml
`;

const JQUERY_JS =
  '/*! jQuery v3.7.1 | (c) OpenJS Foundation and other contributors | jquery.org/license */\n!function(e,t){"use strict";}(this);';
const THEME_CSS = '/*\nTheme Name: Flavor\nVersion: 2.1.0\n*/\nbody{font-family:Inter,sans-serif}';
const COMPRESSED_PAGE = Buffer.from(
  `<!doctype html><html lang="fr"><head><title>Compressé</title></head><body>${'<p>répété</p>'.repeat(500)}</body></html>`,
);
const CYRILLIC_PAGE =
  '<html><head><meta charset="windows-1251"><title>Привет, мир</title></head><body><p>Добро пожаловать</p></body></html>';
const JAPANESE_PAGE =
  '<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><title>こんにちは世界</title></head><body>日本語のページ</body></html>';
