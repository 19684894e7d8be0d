/**
 * In-process publish/subscribe: services publish domain events (credits changed, analysis
 * completed, list ready), GraphQL subscriptions consume them. It implements the PubSub shape
 * type-graphql expects, so it is the subscriptions' transport too. One process only: a
 * deployment with several API processes would swap in a shared transport behind this interface.
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
} as const;

type Listener = (payload: unknown) => void;

/** Events queued per subscriber before the oldest are dropped (a stalled client must not grow memory). */
const MAX_BUFFERED = 1000;

export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();

  publish(topic: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(topic) ?? []) listener(args[0]);
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

export interface PlanChangedEvent {
  accountId: number;
  plan: string;
}
