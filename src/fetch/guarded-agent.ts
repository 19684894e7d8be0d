import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import {
  describeRefusal,
  HostLookup,
  isRefusedAddress,
  PrivateTargetPolicy,
  systemLookup,
} from './private-address-guard';

export interface GuardedAgentOptions extends PrivateTargetPolicy {
  /** Name resolution for connections; the system resolver by default (tests map names to loopback). */
  lookup?: HostLookup;
  /** TCP + TLS handshake timeout. */
  connectTimeoutMs?: number;
  /** Time to wait for response headers, and for each body chunk, once connected. */
  responseTimeoutMs?: number;
  /** Sockets per origin: the politeness bound of a crawl. */
  connectionsPerOrigin?: number;
  /**
   * Verify TLS certificates. Callbacks must (they carry signed data); the crawler does not by
   * default, since a site with a broken certificate is still a site to analyse.
   */
  rejectUnauthorized?: boolean;
  /** Called for every new TLS connection, keyed "hostname:port", to read the peer certificate. */
  onSecureConnect?: (origin: string, socket: TLSSocket) => void;
  /** Called for every new connection (TLS or not), keyed "hostname:port": the address it reached. */
  onConnect?: (origin: string, socket: Socket) => void;
}

export const GUARDED_AGENT_DEFAULTS = {
  connectTimeoutMs: 10_000,
  responseTimeoutMs: 20_000,
} as const;

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * An undici dispatcher whose every connection is checked on the address it actually connects to:
 * names go through a lookup hook that refuses private addresses (so a DNS answer that changes
 * between a pre-check and the connection, "DNS rebinding", gains nothing), and IP literals, which
 * net.connect never looks up, are checked before the socket is opened. Redirects are not followed
 * here (callers follow them by hand), so every hop goes through this same check.
 */
export function createGuardedAgent(options: GuardedAgentOptions = {}): Agent {
  const policy: PrivateTargetPolicy = {
    allowPrivateTargets: options.allowPrivateTargets,
    allowedPrivateRanges: options.allowedPrivateRanges,
  };
  const hostLookup = options.lookup ?? systemLookup;
  const connectTimeout = options.connectTimeoutMs ?? GUARDED_AGENT_DEFAULTS.connectTimeoutMs;
  const responseTimeout = options.responseTimeoutMs ?? GUARDED_AGENT_DEFAULTS.responseTimeoutMs;

  const lookup = (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback): void => {
    hostLookup(hostname).then(
      (resolved) => {
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        const addresses = resolved.filter((address) => wanted === 0 || isIP(address) === wanted);
        const refused = addresses.find((address) => isRefusedAddress(address, policy));
        if (refused !== undefined) return callback(refusal(hostname, refused), '');
        if (addresses.length === 0) return callback(notFound(hostname), '');
        if (lookupOptions.all) {
          return callback(
            null,
            addresses.map((address) => ({ address, family: isIP(address) })),
          );
        }
        callback(null, addresses[0], isIP(addresses[0]));
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };

  const baseConnect = buildConnector({
    timeout: connectTimeout,
    rejectUnauthorized: options.rejectUnauthorized ?? true,
    lookup,
  } as buildConnector.BuildOptions);

  const connect: buildConnector.connector = (connectOptions, callback) => {
    const host = connectOptions.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && isRefusedAddress(host, policy)) {
      callback(refusal(host, host), null);
      return;
    }
    baseConnect(connectOptions, (error, socket) => {
      if (error !== null) return callback(error, null);
      const https = connectOptions.protocol === 'https:';
      const origin = `${host}:${connectOptions.port || (https ? 443 : 80)}`;
      if (https && options.onSecureConnect) options.onSecureConnect(origin, socket as TLSSocket);
      options.onConnect?.(origin, socket as Socket);
      callback(null, socket as NonNullable<typeof socket>);
    });
  };

  return new Agent({
    connect,
    headersTimeout: responseTimeout,
    bodyTimeout: responseTimeout,
    connections: options.connectionsPerOrigin ?? null,
  });
}

/** A socket-level error (not an AppError): it travels through net and undici as the connect error. */
export class TargetRefusedError extends Error {
  readonly code = 'ERR_TARGET_FORBIDDEN';
}

function refusal(host: string, address: string): TargetRefusedError {
  return new TargetRefusedError(`Refused target: ${describeRefusal(host, address)}`);
}

function notFound(host: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${host} has no address of the requested family`);
  error.code = 'ENOTFOUND';
  return error;
}

/** True when an error (or its cause chain) is the guard refusing a target. */
export function isTargetRefusal(error: unknown): boolean {
  for (let current = error as { code?: string; cause?: unknown } | undefined; current;) {
    if (current.code === 'ERR_TARGET_FORBIDDEN') return true;
    current = current.cause as typeof current;
  }
  return false;
}
