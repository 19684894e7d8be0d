import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect as netConnect, isIP, type AddressInfo, type Socket } from 'node:net';
import {
  describeRefusal,
  isRefusedAddress,
  systemLookup,
  type HostLookup,
  type PrivateTargetPolicy,
} from '../private-address-guard';

/** ALLOW_PRIVATE_TARGETS / ALLOWED_PRIVATE_RANGES: which private addresses the browser may reach. */
export interface GuardProxyOptions extends PrivateTargetPolicy {
  /** Name resolution (the same hook the fetcher takes); the system resolver by default. */
  lookup?: HostLookup;
  /** Called for every refused target (logs, tests). */
  onRefused?: (host: string, reason: string) => void;
}

/** Headers that belong to one hop (RFC 9110 7.6.1) or to the proxy itself, never forwarded. */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

class RefusedTarget extends Error {}

/**
 * The browser's only way out: Chromium is started with this proxy for every scheme (loopback
 * included, `<-loopback>`), so each request of a page (the document, redirects, subresources,
 * XHR/fetch, WebSocket tunnels) reaches the network through here. Every host is resolved here and
 * the address actually connected is checked with the same rule as the guarded fetch agent; Chromium
 * itself never resolves a name, so DNS rebinding between a check and a connection gains nothing.
 * Listens on 127.0.0.1 only; it grants nothing a local process could not do directly.
 */
export class GuardProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly lookup: HostLookup;
  private readonly policy: PrivateTargetPolicy;

  constructor(private readonly options: GuardProxyOptions = {}) {
    this.lookup = options.lookup ?? systemLookup;
    this.policy = {
      allowPrivateTargets: options.allowPrivateTargets,
      allowedPrivateRanges: options.allowedPrivateRanges,
    };
  }

  /** Starts listening on an ephemeral loopback port; returns `http://127.0.0.1:PORT`. */
  async start(): Promise<string> {
    if (this.server) return this.url();
    const server = createServer((req, res) => void this.forward(req, res));
    server.on(
      'connect',
      (req: IncomingMessage, socket: Socket, head: Buffer) => void this.tunnel(req, socket, head),
    );
    server.on('upgrade', (_req: IncomingMessage, socket: Socket) => socket.destroy());
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('clientError', (_error, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    return this.url();
  }

  url(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('the guard proxy is not running');
    return `http://127.0.0.1:${address.port}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The address to connect to for a host, or RefusedTarget. */
  private async resolve(host: string): Promise<string> {
    const name = host.replace(/^\[|\]$/g, '');
    const addresses = isIP(name) ? [name] : await this.lookup(name).catch(() => [] as string[]);
    if (addresses.length === 0) throw new RefusedTarget(`${name} does not resolve`);
    const refused = addresses.find((address) => isRefusedAddress(address, this.policy));
    if (refused !== undefined) {
      const reason = describeRefusal(name, refused);
      this.options.onRefused?.(name, reason);
      throw new RefusedTarget(reason);
    }
    return addresses[0];
  }

  /** Plain http: the request line carries the absolute URL. */
  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      res.writeHead(400).end();
      return;
    }
    let address: string;
    try {
      address = await this.resolve(target.hostname);
    } catch (error) {
      res.writeHead(error instanceof RefusedTarget ? 403 : 502, { 'content-length': '0' }).end();
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
    }
    headers.host = target.host;
    const upstream = httpRequest({
      host: address,
      port: target.port || 80,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers,
      setHost: false,
    });
    upstream.on('response', (answer) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_HEADERS.has(name)) out[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-length': '0' }).end();
      else res.destroy();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  /** https and WebSocket: CONNECT host:port, then a byte tunnel to the checked address. */
  private async tunnel(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(req.url ?? '');
    if (!match) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    let address: string;
    try {
      address = await this.resolve(match[1]);
    } catch (error) {
      client.end(`HTTP/1.1 ${error instanceof RefusedTarget ? '403 Forbidden' : '502 Bad Gateway'}\r\n\r\n`);
      return;
    }
    const upstream = netConnect(Number(match[2]), address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    this.sockets.add(upstream);
    upstream.on('close', () => this.sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
  }
}
