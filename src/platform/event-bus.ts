/**
 * Publish/subscribe of domain events (credits changed, analysis completed, list ready, key
 * revoked): services publish, GraphQL subscriptions and the WebSocket server consume. It implements
 * the PubSub shape type-graphql expects, so it is the subscriptions' transport too. In-process by
 * default; with a shared transport (Redis, REDIS_URL) every event goes through it and reaches the
 * listeners of every process, including the one that published it.
 */
export const TOPICS = {
  creditsChanged: 'CREDITS_CHANGED',
  analysisCompleted: 'ANALYSIS_COMPLETED',
  listReady: 'LIST_READY',
  /** A key was revoked: key caches drop it (AuthService). */
  apiKeyRevoked: 'API_KEY_REVOKED',
  /** An account's plan changed: key caches drop its keys. */
  planChanged: 'PLAN_CHANGED',
  datasetOrderChanged: 'DATASET_ORDER_CHANGED',
  /** An address reached a per-address limit (failed keys): every process refuses it until `until`. */
  addressBlocked: 'ADDRESS_BLOCKED',
  /** A fingerprint set was activated: every process reads and compiles it (FingerprintSource). */
  fingerprintsActivated: 'FINGERPRINTS_ACTIVATED',
  /** A technology was added to, removed from, or changed version on a site (the change log's rows). */
  technologyChanged: 'TECHNOLOGY_CHANGED',
} as const;

/** Carries events between processes; `deliver` hands each received event to the local listeners. */
export interface EventTransport {
  send(topic: string, payload: unknown): void;
  start(deliver: (topic: string, payload: unknown) => void): void;
  close(): Promise<void>;
}

type Listener = (payload: unknown) => void;

/** Events queued per subscriber before the oldest are dropped (a stalled client must not grow memory). */
const MAX_BUFFERED = 1000;

export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(private readonly transport: EventTransport | null = null) {
    transport?.start((topic, payload) => this.deliver(topic, payload));
  }

  /** True when events cross processes (listeners elsewhere hear what this process publishes). */
  get shared(): boolean {
    return this.transport !== null;
  }

  publish(topic: string, ...args: unknown[]): void {
    if (this.transport) this.transport.send(topic, args[0]);
    else this.deliver(topic, args[0]);
  }

  async close(): Promise<void> {
    await this.transport?.close();
  }

  private deliver(topic: string, payload: unknown): void {
    for (const listener of this.listeners.get(topic) ?? []) listener(payload);
  }

  subscribe(topic: string): AsyncIterable<unknown> {
    return { [Symbol.asyncIterator]: () => this.iterator(topic) };
  }

  listenerCount(topic: string): number {
    return this.listeners.get(topic)?.size ?? 0;
  }

  private iterator(topic: string): AsyncIterator<unknown> {
    const buffered: unknown[] = [];
    let waiting: ((result: IteratorResult<unknown>) => void) | null = null;
    let done = false;
    const listener: Listener = (payload) => {
      if (waiting) {
        const resolve = waiting;
        waiting = null;
        resolve({ value: payload, done: false });
      } else {
        buffered.push(payload);
        if (buffered.length > MAX_BUFFERED) buffered.shift();
      }
    };
    const set = this.listeners.get(topic) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(topic, set);
    const finish = (): Promise<IteratorResult<unknown>> => {
      done = true;
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(topic);
      waiting?.({ value: undefined, done: true });
      waiting = null;
      return Promise.resolve({ value: undefined, done: true });
    };
    return {
      next: () => {
        if (buffered.length > 0) return Promise.resolve({ value: buffered.shift(), done: false });
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (waiting = resolve));
      },
      return: finish,
      throw: finish,
    };
  }
}

export interface CreditsChangedEvent {
  accountId: number;
  credits: number;
  delta: number;
  reason: string;
}

export interface ApiKeyRevokedEvent {
  keyId: number;
  accountId: number;
}

export interface AddressBlockedEvent {
  /** The limiter's name (its counts' prefix). */
  limiter: string;
  /** The limiter's key of the address. */
  address: string;
  /** When its window resets (ms since the epoch). */
  until: number;
}

export interface PlanChangedEvent {
  accountId: number;
  plan: string;
}
