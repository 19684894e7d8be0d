import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** A host name (or IPv4 address) or a bracketed IPv6 address, with an optional port: nothing else goes into a link. */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

function first(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const item = value?.split(',')[0].trim();
  return item ? item : undefined;
}

/**
 * The origin (`scheme://host[:port]`) a client reached this service at, from which the absolute
 * download links of an answer are made when PUBLIC_BASE_URL is unset: the Host header and the
 * connection's own scheme, or, behind a trusted proxy (TRUST_PROXY), the first X-Forwarded-Proto
 * and X-Forwarded-Host. A header that is not a plain host (or scheme) is ignored, and without a
 * usable Host the address the connection arrived on stands in.
 */
export function requestOrigin(req: IncomingMessage, trustProxy: boolean): string {
  let scheme = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  let host = first(req.headers.host);
  if (trustProxy) {
    const proto = first(req.headers['x-forwarded-proto'])?.toLowerCase();
    if (proto === 'http' || proto === 'https') scheme = proto;
    const forwarded = first(req.headers['x-forwarded-host']);
    if (forwarded && HOST.test(forwarded)) host = forwarded;
  }
  if (!host || !HOST.test(host)) {
    const address = req.socket.localAddress ?? '127.0.0.1';
    host = `${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort ?? 80}`;
  }
  return `${scheme}://${host.toLowerCase()}`;
}

/**
 * The client's address for the per-address limits (the public catalogue, WebSocket sessions,
 * failed keys): the connection's, or, behind a trusted proxy (TRUST_PROXY), the last address of
 * X-Forwarded-For, the one that proxy appended (earlier entries are the client's to write). Express's
 * `req.ip` gives the same with its `trust proxy` set to one hop.
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  const own = req.socket.remoteAddress ?? '';
  if (!trustProxy) return own;
  const header = req.headers['x-forwarded-for'];
  const entries = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
  const last = entries[entries.length - 1].trim();
  return isIP(last) ? last : own;
}
