import { PlanError, httpStatusOf } from '../../../src/errors';
import { PLAN_NAMES, PlanName } from '../../../src/plans/plan-catalog';
import { requireFeature } from '../../../src/services/platform/access.service';
import type { Principal } from '../../../src/services/platform/caller';

const principal = (plan: PlanName): Principal => ({ accountId: 1, keyId: 1, plan, isDemo: plan === 'demo' });

describe('requireFeature', () => {
  it.each(['demo', 'small', 'medium', 'large'] as const)(
    'refuses the business features to the %s plan with a 403 that says so',
    (plan) => {
      for (const [feature, label] of [
        ['lists', /lead lists requires the business plan/i],
        ['verify', /email verification requires the business plan/i],
        ['subdomains', /subdomain finder requires the business plan/i],
      ] as const) {
        let thrown: unknown;
        try {
          requireFeature(principal(plan), feature);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(PlanError);
        expect((thrown as PlanError).message).toMatch(label);
        expect(httpStatusOf((thrown as PlanError).code)).toBe(403);
      }
    },
  );

  it('lets the business plan use every feature', () => {
    for (const feature of ['lists', 'verify', 'subdomains'] as const) {
      expect(() => requireFeature(principal('business'), feature)).not.toThrow();
    }
    expect(PLAN_NAMES).toContain('business');
  });
});
