import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { hostIndexOf, redirectTarget, type SyntheticHost } from './host-catalogue';
import { RequestCounter } from './request-counter';
import type { SitePages } from './site-pages';

export interface SyntheticWebOptions {
  /** Time to first byte of a "slow" host. */
  slowMs: number;
  /** Size of a "huge" host's front page (more than the fetcher's body cap). */
  hugeBytes: number;
  /** Retry-After of 429 and 503 answers, in seconds. */
  retryAfterSeconds: number;
  /**
   * Where "redirect-private" hosts send the crawler. 10.0.0.1 / 192.168.1.1 only when the service
   * refuses them before connecting (ALLOWED_PRIVATE_RANGES): with ALLOW_PRIVATE_TARGETS alone the
   * crawler would connect, and on a machine with a default route that leaves the machine.
   */
  privateTargets: string[];
}

export interface SyntheticWeb {
  /** Requests per host name (Host header) and per address (the socket's local address) per second. */
  perHost: RequestCounter;
  perAddress: RequestCounter;
  /** Requests by behaviour of the host asked. */
  byBehaviour: Map<string, number>;
  close(): Promise<void>;
}

const GENERIC_SCRIPT = '/* site script */\nwindow.siteReady = true;\n';
const HUGE_CHUNK = Buffer.from(`<p>${'lorem ipsum dolor sit amet '.repeat(2400)}</p>\n`);

/**
 * The synthetic web's HTTP side: one listening socket on port 80 of each host's own loopback
 * address (so that per-address politeness is observable), every accepted connection handed to
 * one shared HTTP server that answers by Host header according to the host's behaviour. Port 443
 * is left closed: the crawler's https attempt is refused at once and it falls back to http, as it
 * does for a real http-only site.
 */
export async function startSyntheticWeb(
  hosts: readonly SyntheticHost[],
  pages: SitePages,
  options: SyntheticWebOptions,
): Promise<SyntheticWeb> {
  const perHost = new RequestCounter();
  const perAddress = new RequestCounter();
  const byBehaviour = new Map<string, number>();
  const held = new Set<Socket>();

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const name = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const index = hostIndexOf(name);
    const host = index !== undefined ? hosts[index] : undefined;
    perHost.count(name);
    perAddress.count(request.socket.localAddress ?? '?');
    if (!host) return void response.writeHead(404).end();
    byBehaviour.set(host.behaviour, (byBehaviour.get(host.behaviour) ?? 0) + 1);
    const path = (request.url ?? '/').split('?')[0];
    switch (host.behaviour) {
      case 'slow':
        setTimeout(() => serveSite(host, path, response, false), options.slowMs);
        return;
      case 'timeout':
        // Never answered: the socket stays open until the client gives up.
        held.add(request.socket);
        request.socket.once('close', () => held.delete(request.socket));
        return;
      case 'reset':
        request.socket.resetAndDestroy();
        return;
      case 'redirect-host':
        return void response
          .writeHead(301, { location: `http://${redirectTarget(hosts, host.index).name}${path}` })
          .end();
      case 'redirect-private':
        return void response
          .writeHead(302, { location: options.privateTargets[host.index % options.privateTargets.length] })
          .end();
      case 'http-404':
      case 'http-500':
        return void response
          .writeHead(Number(host.behaviour.slice(5)), { 'content-type': 'text/html' })
          .end('<!DOCTYPE html><title>Error</title><h1>Error</h1>');
      case 'http-429':
      case 'http-503':
        return void response
          .writeHead(Number(host.behaviour.slice(5)), {
            'content-type': 'text/html',
            'retry-after': String(options.retryAfterSeconds),
          })
          .end('<!DOCTYPE html><title>Busy</title><h1>Try again later</h1>');
      case 'huge':
        if (path === '/') return serveHuge(response);
        return serveSite(host, path, response, false);
      case 'non-html':
        if (path === '/')
          return void response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ status: 'ok', host: host.name, items: [1, 2, 3] }));
        return serveSite(host, path, response, false);
      case 'robots-forbid':
        return serveSite(host, path, response, true);
      default:
        return serveSite(host, path, response, false);
    }
  };

  const serveSite = (host: SyntheticHost, path: string, response: ServerResponse, forbid: boolean): void => {
    if (response.destroyed) return;
    const template = pages.templateFor(host.index);
    const html = (body: string) =>
      response.writeHead(200, { ...template.headers, 'content-type': 'text/html; charset=utf-8' }).end(body);
    if (path === '/') return void html(pages.front(host.index, host.name));
    if (path === '/about') return void html(pages.about(host.index, host.name));
    if (path === '/contact') return void html(pages.contact(host.index, host.name));
    if (path === '/robots.txt')
      return void response
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(forbid ? 'User-agent: *\nDisallow: /\n' : 'User-agent: *\nAllow: /\n');
    if (path.endsWith('.js'))
      return void response
        .writeHead(200, { 'content-type': 'application/javascript' })
        .end(template.scripts.get(path) ?? GENERIC_SCRIPT);
    if (path.endsWith('.css'))
      return void response.writeHead(200, { 'content-type': 'text/css' }).end('body{margin:0}');
    response.writeHead(404, { 'content-type': 'text/html' }).end('<!DOCTYPE html><title>Not found</title>');
  };

  const serveHuge = (response: ServerResponse): void => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.write('<!DOCTYPE html><html><head><title>Huge</title></head><body>');
    let sent = 0;
    const more = (): void => {
      while (sent < options.hugeBytes && !response.destroyed) {
        sent += HUGE_CHUNK.length;
        if (!response.write(HUGE_CHUNK)) return void response.once('drain', more);
      }
      if (!response.destroyed) response.end('</body></html>');
    };
    more();
  };

  const http = createHttpServer({ keepAliveTimeout: 5000 }, handle);
  http.on('clientError', (_error, socket) => socket.destroy());
  const listeners: NetServer[] = [];
  const listening = hosts.filter((host) => host.behaviour !== 'nxdomain' && host.behaviour !== 'refused');
  // A few hundred binds at a time: each is quick, but ten thousand at once would queue in libuv anyway.
  for (let i = 0; i < listening.length; i += 500) {
    await Promise.all(
      listening.slice(i, i + 500).map(
        (host) =>
          new Promise<void>((resolve, reject) => {
            const server = createNetServer((socket) => http.emit('connection', socket));
            server.once('error', reject);
            server.listen({ port: 80, host: host.address, backlog: 64 }, () => resolve());
            listeners.push(server);
          }),
      ),
    );
  }
  return {
    perHost,
    perAddress,
    byBehaviour,
    close: async () => {
      for (const socket of held) socket.destroy();
      http.closeAllConnections();
      http.close();
      await Promise.all(listeners.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}
