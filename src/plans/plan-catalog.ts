/**
 * The one place where plans are defined: per-family rate limits (the spec's Limits table, with the
 * Small/Medium/Large variants it records), the quota, and the features each plan unlocks.
 * Services read this; nothing else hard-codes a limit.
 */
export const PLAN_NAMES = ['demo', 'small', 'medium', 'large', 'business'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** Endpoint families: one rate-limit bucket per key and family. */
export const FAMILIES = [
  'lists',
  'lists-create',
  'lists-finalize',
  'dataset',
  'live',
  'crawl-v2',
  'crawl-v1',
  'lookup',
  'analyze',
  'verify',
  'subdomains',
  'changes',
  'monitors',
  'credits',
  'usage',
  'account',
] as const;
export type Family = (typeof FAMILIES)[number];

export type Feature = 'lists' | 'verify' | 'subdomains';

export interface RateLimit {
  /** Requests allowed per window. */
  max: number;
  /** Window length in milliseconds. */
  windowMs: number;
  /** A second, shorter window checked too: how fast a burst may go (datasets: 1 request/s). */
  burst?: { max: number; windowMs: number };
}

/** How much an account may watch with monitors (POST /v2/monitors). */
export interface PlanLimits {
  /** Monitors an account may have at once. */
  monitors: number;
  /** Distinct sites its monitors may watch together (a site named by two monitors counts once). */
  watchedDomains: number;
}

export interface PlanDefinition {
  name: string;
  /** Requests per quota period across all families (usage requests count too); null: no quota. */
  quota: { limit: number; period: 'DAY' | 'MONTH' } | null;
  features: readonly Feature[];
  rateLimits: Readonly<Record<Family, RateLimit>>;
  /** Whether requests are charged credits (a plan for in-house use may not be). */
  metered: boolean;
  limits: PlanLimits;
}

const perSecond = (max: number): RateLimit => ({ max, windowMs: 1000 });

/** Limits shared by every paid plan (the spec's main figures). */
const baseLimits: Record<Family, RateLimit> = {
  lists: perSecond(5),
  'lists-create': perSecond(5),
  'lists-finalize': perSecond(5),
  // "1 request per 10 s, burstable to 1 request/s": on average 1 per 10 s (6 in any minute), in
  // bursts no faster than 1 per second (so a quote and its confirmation need not be 10 s apart).
  dataset: { max: 6, windowMs: 60_000, burst: perSecond(1) },
  live: perSecond(5),
  'crawl-v2': perSecond(1),
  'crawl-v1': perSecond(1),
  lookup: perSecond(1),
  analyze: perSecond(1),
  verify: perSecond(5),
  subdomains: perSecond(5),
  // Not in the spec (an extension): paging through the feed, like the subdomain finder.
  changes: perSecond(5),
  // An extension too: creating, reading and deleting monitors.
  monitors: perSecond(5),
  // Not in the spec's table: cheap reads, limited like the other synchronous reads.
  credits: perSecond(5),
  usage: perSecond(5),
  account: perSecond(10),
};

/** The variant row: Medium and Large (and Business, which is above them) get 10 requests/s here. */
const fastTier: Partial<Record<Family, RateLimit>> = {
  'crawl-v1': perSecond(10),
  lookup: perSecond(10),
  analyze: perSecond(10),
};

const demoLimits = Object.fromEntries(Object.keys(baseLimits).map((f) => [f, perSecond(1)])) as Record<
  Family,
  RateLimit
>;

/** The built-in plans; PLANS_FILE may override them and add others (see PlanCatalog). */
/** A built-in plan always has a quota. */
type BuiltInPlan = PlanDefinition & { quota: NonNullable<PlanDefinition['quota']> };

export const PLANS: Readonly<Record<PlanName, BuiltInPlan>> = Object.freeze({
  demo: {
    name: 'demo',
    quota: { limit: 10, period: 'DAY' },
    features: [],
    rateLimits: demoLimits,
    metered: true,
    // The demo key is shared: its callbacks would go wherever anyone pointed them.
    limits: { monitors: 0, watchedDomains: 0 },
  },
  small: {
    name: 'small',
    quota: { limit: 50_000, period: 'MONTH' },
    features: [],
    rateLimits: baseLimits,
    metered: true,
    limits: { monitors: 5, watchedDomains: 100 },
  },
  medium: {
    name: 'medium',
    quota: { limit: 200_000, period: 'MONTH' },
    features: [],
    rateLimits: { ...baseLimits, ...fastTier },
    metered: true,
    limits: { monitors: 20, watchedDomains: 1_000 },
  },
  large: {
    name: 'large',
    quota: { limit: 1_000_000, period: 'MONTH' },
    features: [],
    rateLimits: { ...baseLimits, ...fastTier },
    metered: true,
    limits: { monitors: 50, watchedDomains: 5_000 },
  },
  business: {
    name: 'business',
    quota: { limit: 5_000_000, period: 'MONTH' },
    features: ['lists', 'verify', 'subdomains'],
    rateLimits: { ...baseLimits, ...fastTier },
    metered: true,
    limits: { monitors: 200, watchedDomains: 20_000 },
  },
});

/**
 * The plans a running service knows: the built-in ones, overridden or extended by the operator's
 * PLANS_FILE (src/plans/plans-file.ts). Services are given the catalog; nothing else reads a plan.
 */
export class PlanCatalog {
  private readonly plans: ReadonlyMap<string, PlanDefinition>;

  constructor(definitions: Readonly<Record<string, PlanDefinition>> = PLANS) {
    this.plans = new Map(Object.entries(definitions));
  }

  /** The plan of that name; an account on a plan no longer defined gets the demo plan's limits. */
  get(name: string): PlanDefinition {
    return this.plans.get(name) ?? { ...PLANS.demo, name, features: [] };
  }

  has(name: string): boolean {
    return this.plans.has(name);
  }

  get names(): string[] {
    return [...this.plans.keys()];
  }
}

export const BUILT_IN_PLANS = new PlanCatalog();

/** The plan a feature needs (the spec: lists, verification and subdomains need Business). */
export const FEATURE_PLAN: Readonly<Record<Feature, PlanName>> = {
  lists: 'business',
  verify: 'business',
  subdomains: 'business',
};

export const FEATURE_LABEL: Readonly<Record<Feature, string>> = {
  lists: 'Lead lists',
  verify: 'Email verification',
  subdomains: 'The subdomain finder',
};
