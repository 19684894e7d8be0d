/** Who is calling: resolved from the API key once per request. */
export interface Principal {
  accountId: number;
  /** The API key's id; the demo key has its own identity. */
  keyId: number | 'demo';
  /** A built-in plan or one of PLANS_FILE. */
  plan: string;
  isDemo: boolean;
}

/** What a metered call cost: filled by CreditService, read by transports for the credit headers. */
export interface Meter {
  spent: number;
  remaining: number | null;
}

/**
 * Everything a service needs to know about the request it serves. Transports (GraphQL, REST,
 * subscriptions) and workers build one; services never see HTTP or GraphQL types.
 */
export interface Caller {
  principal: Principal;
  requestId: string;
  meter: Meter;
}

export function newMeter(): Meter {
  return { spent: 0, remaining: null };
}
