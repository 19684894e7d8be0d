import type { promises as dns } from 'node:dns';
import { setMaxListeners } from 'node:events';
import { createDnsResolver, isDnsNotFound } from '../fetch/dns-resolver';

export interface DnsQueryOptions {
  /** DNS servers as "ip" or "ip:port"; empty or absent means the system's resolvers. */
  dnsServers?: string[];
  /** Time allowed for each DNS question, in milliseconds. */
  queryTimeoutMs?: number;
  /** Attempts per question inside the resolver. */
  tries?: number;
}

export const DEFAULT_QUERY_TIMEOUT_MS = 2000;
const DEFAULT_TRIES = 2;

/** What a DNS question produced: records, a definite "no such name/record", or no usable answer. */
export type DnsAnswer<T> =
  { status: 'answered'; records: T[] } | { status: 'not-found' } | { status: 'failed' };

const NOT_FOUND = { status: 'not-found' } as const;
const FAILED = { status: 'failed' } as const;

/**
 * A resolver used for one piece of work (an inline DNS pass, a discovery job) with two bounds:
 * every question has its own timeout, and `runUntil` stops the whole piece of work at a deadline.
 * Questions never throw: a discovery source that fails simply contributes nothing. After the
 * session closes, outstanding questions are cancelled and new ones fail at once, so nothing keeps
 * running (or keeps the process alive) past the deadline.
 */
export class DnsQuerySession {
  private readonly resolver: dns.Resolver;
  private readonly queryTimeoutMs: number;
  private readonly abort = new AbortController();

  constructor(options: DnsQueryOptions = {}) {
    this.queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    this.resolver = createDnsResolver({
      servers: options.dnsServers ?? [],
      timeoutMs: this.queryTimeoutMs,
      tries: options.tries ?? DEFAULT_TRIES,
    });
    // Every question in flight listens for the close; a discovery run has many at once.
    setMaxListeners(0, this.abort.signal);
  }

  /** Aborted when the session closes; long operations (zone transfers) listen to it. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get closed(): boolean {
    return this.abort.signal.aborted;
  }

  query<T>(question: (resolver: dns.Resolver) => Promise<T[]>): Promise<DnsAnswer<T>> {
    if (this.closed) return Promise.resolve(FAILED);
    return new Promise((resolve) => {
      const finish = (answer: DnsAnswer<T>) => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      const onAbort = () => finish(FAILED);
      // The resolver's own timeout is per attempt and backs off between tries; this one bounds
      // the question as a whole.
      const timer = setTimeout(onAbort, this.queryTimeoutMs);
      this.signal.addEventListener('abort', onAbort, { once: true });
      question(this.resolver).then(
        (records) => finish(records.length > 0 ? { status: 'answered', records } : NOT_FOUND),
        (error: unknown) => finish(isDnsNotFound(error) ? NOT_FOUND : FAILED),
      );
    });
  }

  /** The records of an answer, or none whatever went wrong. */
  async records<T>(question: (resolver: dns.Resolver) => Promise<T[]>): Promise<T[]> {
    // eslint-disable-next-line no-restricted-syntax -- a DNS question, not SQL
    const answer = await this.query(question);
    return answer.status === 'answered' ? answer.records : [];
  }

  /** Runs `work` until it finishes or `deadlineMs` passes, then closes the session. */
  async runUntil(deadlineMs: number, work: () => Promise<unknown>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
    try {
      await Promise.race([work(), deadline]);
    } finally {
      clearTimeout(timer);
      this.close();
    }
  }

  close(): void {
    if (this.closed) return;
    this.abort.abort();
    this.resolver.cancel();
  }
}
