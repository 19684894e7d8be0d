import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { FAMILIES, Family, PlanCatalog, PlanDefinition, PLANS, RateLimit } from './plan-catalog';

const rateLimit = z
  .object({
    max: z.number().int().min(1),
    windowSeconds: z.number().positive().max(86_400),
  })
  .strict();

const planEntry = z
  .object({
    /** A plan to start from (built-in, or defined earlier in the file); the entry overrides it. */
    extends: z.string().optional(),
    quota: z
      .object({ limit: z.number().int().min(1), period: z.enum(['DAY', 'MONTH']) })
      .strict()
      .nullable()
      .optional(),
    features: z.array(z.enum(['lists', 'verify', 'subdomains'])).optional(),
    /** Per endpoint family; "*" sets every family not named. */
    rateLimits: z
      .record(z.string(), rateLimit)
      .optional()
      .superRefine((limits, ctx) => {
        for (const family of Object.keys(limits ?? {})) {
          if (family !== '*' && !(FAMILIES as readonly string[]).includes(family)) {
            ctx.addIssue({
              code: 'custom',
              path: [family],
              message: `unknown endpoint family (one of *, ${FAMILIES.join(', ')})`,
            });
          }
        }
      }),
    metered: z.boolean().optional(),
    /** Monitors per account and the sites they watch together. */
    limits: z
      .object({
        monitors: z.number().int().min(0).optional(),
        watchedDomains: z.number().int().min(0).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const plansFile = z
  .object({
    plans: z.record(
      z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/, 'plan names are a-z, 0-9, _ and -'),
      planEntry,
    ),
  })
  .strict();

export class PlansFileError extends Error {}

/**
 * Reads PLANS_FILE (YAML or JSON: YAML is a superset) into the service's plan catalog: each entry
 * overrides the built-in plan of its name, or defines a new one from `extends` (default: small).
 * Every mistake is reported with the path of the bad entry, e.g.
 * `PLANS_FILE plans.json: plans.gold.rateLimits.lookups: unknown endpoint family`.
 */
export function loadPlanCatalog(path: string | undefined): PlanCatalog {
  if (!path) return new PlanCatalog();
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new PlansFileError(`PLANS_FILE ${path}: ${(error as Error).message}`);
  }
  const parsed = plansFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PlansFileError(
      `PLANS_FILE ${path}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`,
    );
  }
  const definitions: Record<string, PlanDefinition> = { ...PLANS };
  for (const [name, entry] of Object.entries(parsed.data.plans)) {
    const baseName = entry.extends ?? (name in definitions ? name : 'small');
    const base = definitions[baseName];
    if (!base) {
      throw new PlansFileError(
        `PLANS_FILE ${path}: plans.${name}.extends: no plan named ${baseName} (built-in or earlier in the file)`,
      );
    }
    definitions[name] = {
      name,
      quota: entry.quota === undefined ? base.quota : entry.quota,
      features: entry.features ?? base.features,
      rateLimits: mergeLimits(base.rateLimits, entry.rateLimits ?? {}),
      metered: entry.metered ?? base.metered,
      limits: { ...base.limits, ...entry.limits },
    };
  }
  return new PlanCatalog(definitions);
}

function mergeLimits(
  base: Readonly<Record<Family, RateLimit>>,
  overrides: Record<string, { max: number; windowSeconds: number }>,
): Record<Family, RateLimit> {
  const toLimit = (limit: { max: number; windowSeconds: number }): RateLimit => ({
    max: limit.max,
    windowMs: Math.round(limit.windowSeconds * 1000),
  });
  return Object.fromEntries(
    FAMILIES.map((family) => {
      const override = overrides[family] ?? overrides['*'];
      return [family, override ? toLimit(override) : base[family]];
    }),
  ) as Record<Family, RateLimit>;
}
