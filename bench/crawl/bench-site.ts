import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BenchSite {
  /** "http://127.0.0.1:PORT": each site listens on its own port, so each is its own site in the index. */
  url: string;
  /** Page requests answered (HTML pages only, not assets or robots.txt). */
  pageViews(): number;
  close(): Promise<void>;
}

const PRODUCTS = 30;

/**
 * A small but realistic shop (WooCommerce on WordPress behind nginx): a home page, about, contact,
 * a catalogue linking 30 product pages, robots.txt, a same-site script and stylesheet, cookies and
 * the headers such sites send. More than 25 pages, so the crawler's page limit is what stops it.
 */
export async function startBenchSite(name: string): Promise<BenchSite> {
  let views = 0;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://site').pathname;
    const asset = ASSETS[path];
    if (asset) return send(response, 200, { 'content-type': asset.type }, asset.body);
    const body = pageAt(name, path);
    if (body === undefined)
      return send(response, 404, { 'content-type': 'text/html' }, '<html><body>Not found</body></html>');
    views++;
    send(
      response,
      200,
      {
        'content-type': 'text/html; charset=UTF-8',
        server: 'nginx/1.24.0',
        'x-powered-by': 'PHP/8.1.27',
        'set-cookie': 'woocommerce_cart_hash=0; path=/',
        link: `<http://${request.headers.host}/wp-json/>; rel="https://api.w.org/"`,
      },
      body,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pageViews: () => views,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(response: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  const bytes = Buffer.from(body, 'utf8');
  response.writeHead(status, { ...headers, 'content-length': String(bytes.length) });
  response.end(bytes);
}

const ASSETS: Record<string, { type: string; body: string }> = {
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /wp-admin/\nDisallow: /cart/\n' },
  '/wp-includes/js/jquery/jquery.min.js': {
    type: 'application/javascript',
    body: '/*! jQuery v3.7.1 | (c) OpenJS Foundation and other contributors */\n!function(e){"use strict"}(this);',
  },
  '/wp-content/plugins/woocommerce/assets/js/frontend/woocommerce.min.js': {
    type: 'application/javascript',
    body: 'jQuery(function(o){o(".woocommerce-ordering").on("change","select.orderby",function(){})});',
  },
  '/wp-content/themes/storefront/style.css': {
    type: 'text/css',
    body: '/*\nTheme Name: Storefront\nVersion: 4.5.3\n*/\nbody{margin:0;font-family:sans-serif}',
  },
};

function pageAt(site: string, path: string): string | undefined {
  if (path === '/') return layout(site, 'Home', '<h1>Fresh coffee, roasted weekly</h1><p>Welcome.</p>');
  if (path === '/about/') return layout(site, 'About', '<h1>About us</h1><p>Roasting since 2009.</p>');
  if (path === '/contact/')
    return layout(site, 'Contact', '<h1>Contact</h1><a href="mailto:shop@example.com">shop@example.com</a>');
  if (path === '/shop/') {
    const items = Array.from(
      { length: PRODUCTS },
      (_, i) => `<li><a href="/product/coffee-${i + 1}/">Coffee ${i + 1}</a></li>`,
    );
    return layout(site, 'Shop', `<h1>Shop</h1><ul class="products">${items.join('')}</ul>`);
  }
  const product = /^\/product\/coffee-(\d+)\/$/.exec(path);
  if (product && Number(product[1]) >= 1 && Number(product[1]) <= PRODUCTS) {
    return layout(
      site,
      `Coffee ${product[1]}`,
      `<div class="product"><h1>Coffee ${product[1]}</h1><p class="price">€${(8 + Number(product[1]) / 2).toFixed(2)}</p>
<form class="cart" action="/cart/" method="post"><button name="add-to-cart" value="${product[1]}">Add to cart</button></form>
<a href="/shop/">Back to the shop</a></div>`,
    );
  }
  return undefined;
}

function layout(site: string, title: string, main: string): string {
  return `<!DOCTYPE html>
<html lang="en-GB">
<head>
<meta charset="UTF-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="WordPress 6.4.3">
<meta name="generator" content="WooCommerce 8.5.2">
<meta name="description" content="${site}: speciality coffee roasted weekly">
<meta property="og:site_name" content="${site}">
<title>${title} &#8211; ${site}</title>
<link rel="stylesheet" href="/wp-content/themes/storefront/style.css?ver=4.5.3">
<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Source+Sans+Pro">
<script src="/wp-includes/js/jquery/jquery.min.js?ver=3.7.1"></script>
<script src="/wp-content/plugins/woocommerce/assets/js/frontend/woocommerce.min.js?ver=8.5.2"></script>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-BENCH"></script>
</head>
<body class="woocommerce-page">
<header><a href="/">${site}</a>
<nav><a href="/">Home</a> <a href="/shop/">Shop</a> <a href="/about/">About</a> <a href="/contact/">Contact</a>
<a href="/cart/">Cart</a> <a href="https://www.instagram.com/benchcoffee/">Instagram</a></nav></header>
<main>${main}</main>
<footer><p>&copy; ${site}</p></footer>
</body>
</html>`;
}
