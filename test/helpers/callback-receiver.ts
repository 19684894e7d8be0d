import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './eventually';

export interface ReceivedCallback {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as received (what the signature covers). */
  body: string;
  /** Whether the signature header matches sha256(secret + body); null when the receiver has no secret. */
  signatureValid: boolean | null;
}

/** A status to answer with, or 'hang' to never answer (for timeouts). */
export type ReceiverReply = number | { status: number; headers?: Record<string, string> } | 'hang';

export interface CallbackReceiverOptions {
  /** The account's signing secret; every request's signature is checked against it. */
  secret?: string;
  /** HEADER_PREFIX of the service under test. */
  headerPrefix?: string;
}

export interface CallbackReceiver {
  /** http://127.0.0.1:PORT/callback */
  url: string;
  /** Another path on the same receiver. */
  urlFor(path: string): string;
  received: ReceivedCallback[];
  /** How to answer the next requests (200 by default); `index` counts requests from 0. */
  reply(with_: ReceiverReply | ((request: ReceivedCallback, index: number) => ReceiverReply)): void;
  /** Resolves once `count` requests have arrived; rejects after `timeoutMs` so a test cannot hang. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedCallback[]>;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that records callback POSTs and verifies their signatures, for
 * tests of anything that sends callbacks.
 */
export async function startCallbackReceiver(
  options: CallbackReceiverOptions = {},
): Promise<CallbackReceiver> {
  const prefix = options.headerPrefix ?? 'service';
  const received: ReceivedCallback[] = [];
  let replyFor: (request: ReceivedCallback, index: number) => ReceiverReply = () => 200;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const request: ReceivedCallback = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        signatureValid:
          options.secret === undefined
            ? null
            : verify(options.secret, body, req.headers[`${prefix}-signature`]),
      };
      const index = received.length;
      received.push(request);
      const reply = replyFor(request, index);
      if (reply === 'hang') return;
      const { status, headers } = typeof reply === 'number' ? { status: reply, headers: {} } : reply;
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end(status < 300 ? 'ok' : 'not ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: `${base}/callback`,
    urlFor: (path) => `${base}${path.startsWith('/') ? path : `/${path}`}`,
    received,
    reply(with_) {
      replyFor = typeof with_ === 'function' ? with_ : () => with_;
    },
    async waitFor(count, timeoutMs = 20_000) {
      await eventually(
        () => {
          if (received.length < count) throw new Error(`${received.length} received`);
          return true;
        },
        { describe: `${count} callback(s)`, timeoutMs },
      );
      return received.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function verify(secret: string, body: string, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(
    createHash('sha256')
      .update(secret + body, 'utf8')
      .digest('hex'),
  );
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
