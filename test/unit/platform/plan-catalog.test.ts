import { FAMILIES, FEATURE_PLAN, PLAN_NAMES, PLANS } from '../../../src/plans/plan-catalog';

const perSecond = (max: number) => ({ max, windowMs: 1000 });

describe('plan catalog', () => {
  it('defines the five plans', () => {
    expect(Object.keys(PLANS).sort()).toEqual([...PLAN_NAMES].sort());
    expect(PLAN_NAMES).toEqual(['demo', 'small', 'medium', 'large', 'business']);
  });

  it('gives every plan a limit for every family', () => {
    for (const plan of PLAN_NAMES) {
      for (const family of FAMILIES) {
        const limit = PLANS[plan].rateLimits[family];
        expect(limit.max).toBeGreaterThanOrEqual(1);
        expect(limit.windowMs).toBeGreaterThanOrEqual(1000);
      }
    }
  });

  it.each(['lookup', 'analyze', 'crawl-v1'] as const)(
    'has the Limits table variant for %s: 1/s on Small, 10/s on Medium and Large',
    (family) => {
      expect(PLANS.small.rateLimits[family]).toEqual(perSecond(1));
      expect(PLANS.medium.rateLimits[family]).toEqual(perSecond(10));
      expect(PLANS.large.rateLimits[family]).toEqual(perSecond(10));
      expect(
        PLANS.business.rateLimits[family].max / PLANS.business.rateLimits[family].windowMs,
      ).toBeGreaterThanOrEqual(10 / 1000);
    },
  );

  it('has the main figures of the Limits table for every paid plan', () => {
    for (const plan of ['small', 'medium', 'large', 'business'] as const) {
      const limits = PLANS[plan].rateLimits;
      for (const family of [
        'lists',
        'lists-create',
        'lists-finalize',
        'live',
        'verify',
        'subdomains',
      ] as const) {
        expect(limits[family]).toEqual(perSecond(5));
      }
      expect(limits['crawl-v2']).toEqual(perSecond(1));
      expect(limits.dataset).toEqual({ max: 6, windowMs: 60_000, burst: { max: 1, windowMs: 1000 } });
    }
  });

  it('has a daily quota of ten requests for the demo plan and monthly quotas for paid plans', () => {
    expect(PLANS.demo.quota).toEqual({ limit: 10, period: 'DAY' });
    for (const plan of ['small', 'medium', 'large', 'business'] as const)
      expect(PLANS[plan].quota.period).toBe('MONTH');
    expect(PLANS.small.quota.limit).toBeLessThan(PLANS.medium.quota.limit);
    expect(PLANS.medium.quota.limit).toBeLessThan(PLANS.large.quota.limit);
  });

  it('keeps lists, verification and subdomains for Business only', () => {
    expect(FEATURE_PLAN).toEqual({ lists: 'business', verify: 'business', subdomains: 'business' });
    for (const plan of ['demo', 'small', 'medium', 'large'] as const)
      expect(PLANS[plan].features).toEqual([]);
    expect([...PLANS.business.features].sort()).toEqual(['lists', 'subdomains', 'verify']);
  });
});
