import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../src/platform/config';
import { PLANS } from '../../../src/plans/plan-catalog';
import { loadPlanCatalog } from '../../../src/plans/plans-file';

const dir = mkdtempSync(join(tmpdir(), 'plans-file-'));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('PLANS_FILE', () => {
  it('without a file, the catalog is the built-in plans', () => {
    const catalog = loadPlanCatalog(undefined);
    expect(catalog.names.sort()).toEqual(Object.keys(PLANS).sort());
    expect(catalog.get('large')).toEqual(PLANS.large);
  });

  it('defines new plans from a base and overrides built-in ones (JSON or YAML)', () => {
    const catalog = loadPlanCatalog(
      file(
        'plans.json',
        JSON.stringify({
          plans: {
            gold: {
              extends: 'business',
              quota: { limit: 42, period: 'DAY' },
              rateLimits: { lookup: { max: 50, windowSeconds: 1 } },
            },
            small: { rateLimits: { '*': { max: 2, windowSeconds: 1 } }, metered: false },
          },
        }),
      ),
    );
    const gold = catalog.get('gold');
    expect(gold.quota).toEqual({ limit: 42, period: 'DAY' });
    expect(gold.features).toEqual(PLANS.business.features);
    expect(gold.rateLimits.lookup).toEqual({ max: 50, windowMs: 1000 });
    expect(gold.rateLimits.live).toEqual(PLANS.business.rateLimits.live);
    expect(gold.metered).toBe(true);
    const small = catalog.get('small');
    expect(small.rateLimits.verify).toEqual({ max: 2, windowMs: 1000 });
    expect(small.metered).toBe(false);
    expect(small.quota).toEqual(PLANS.small.quota);
    const yaml = loadPlanCatalog(
      file('plans.yaml', 'plans:\n  team:\n    quota: null\n    features: [lists]\n'),
    );
    expect(yaml.get('team').quota).toBeNull();
    expect(yaml.get('team').features).toEqual(['lists']);
    expect(yaml.get('team').rateLimits).toEqual(PLANS.small.rateLimits);
  });

  it('sets the monitor limits of a plan, each falling back to its base', () => {
    const catalog = loadPlanCatalog(
      file('limits.yaml', 'plans:\n  gold:\n    extends: large\n    limits: { watchedDomains: 9 }\n'),
    );
    expect(catalog.get('gold').limits).toEqual({ monitors: PLANS.large.limits.monitors, watchedDomains: 9 });
    expect(() =>
      loadPlanCatalog(file('bad-limits.yaml', 'plans:\n  gold:\n    limits: { monitors: -1 }\n')),
    ).toThrow(/plans\.gold\.limits\.monitors/);
  });

  it.each([
    [
      'an unknown family',
      'plans:\n  gold:\n    rateLimits:\n      lookups: { max: 1, windowSeconds: 1 }\n',
      /plans\.gold\.rateLimits\.lookups: unknown endpoint family/,
    ],
    [
      'a bad quota period',
      'plans:\n  gold:\n    quota: { limit: 5, period: WEEK }\n',
      /plans\.gold\.quota\.period/,
    ],
    [
      'a zero limit',
      'plans:\n  gold:\n    rateLimits:\n      "*": { max: 0, windowSeconds: 1 }\n',
      /plans\.gold\.rateLimits\.\*\.max/,
    ],
    [
      'an unknown base',
      'plans:\n  gold:\n    extends: platinum\n',
      /plans\.gold\.extends: no plan named platinum/,
    ],
    ['an unknown field', 'plans:\n  gold:\n    price: 5\n', /plans\.gold: .*price/],
    ['a bad name', 'plans:\n  "Gold Plan": {}\n', /plans\.Gold Plan/],
    ['broken YAML', 'plans: [\n', /PLANS_FILE .*plans\.yaml/],
  ])('refuses %s with a message naming the entry', (_case, text, message) => {
    const path = file('plans.yaml', text);
    expect(() => loadPlanCatalog(path)).toThrow(message);
    // At start-up: the configuration is refused, naming PLANS_FILE.
    expect(() => loadConfig({ PLANS_FILE: path })).toThrow(ConfigError);
    expect(() => loadConfig({ PLANS_FILE: path })).toThrow(/PLANS_FILE/);
  });

  it('refuses a file that does not exist', () => {
    expect(() => loadConfig({ PLANS_FILE: join(dir, 'missing.yaml') })).toThrow(/PLANS_FILE.*missing\.yaml/);
  });
});
