import { z } from 'zod';

/**
 * Every setting of the service, read once from the environment, validated, frozen.
 * The process refuses to start with a message naming each invalid setting (see loadConfig).
 * The README's configuration table mirrors this schema.
 */
const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? fallback : ['true', '1', 'yes'].includes(v)));
const int = (fallback: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(fallback);
const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: int(3000, 0, 65535),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .default('sqlite:./data/service.db')
    .refine((v) => /^(sqlite:.+|mysql:\/\/.+|mariadb:\/\/.+)$/.test(v), 'must be sqlite:PATH or mysql://user:pass@host:port/db'),
  PUBLIC_BASE_URL: z.url().optional(),
  DEMO_API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  DEMO_DAILY_REQUESTS: int(10, 1, 1_000_000),
  HEADER_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'must be lowercase letters, digits and dashes')
    .default('service'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  REQUEST_BODY_LIMIT_BYTES: int(1_048_576, 1024, 50 * 1_048_576),
  ALLOW_PRIVATE_TARGETS: bool(false),
  DNS_SERVERS: list,
  DNS_TIMEOUT_MS: int(3000, 100, 30_000),
  EMBEDDED_WORKER: bool(true),
  WORKER_CONCURRENCY: int(4, 1, 64),
  JOB_LEASE_SECONDS: int(60, 2, 3600),
  JOB_POLL_INTERVAL_MS: int(500, 10, 60_000),
  JOB_MAX_ATTEMPTS: int(8, 1, 100),
  CALLBACK_TIMEOUT_MS: int(10_000, 100, 300_000),
  CALLBACK_RETRY_HOURS: int(24, 1, 168),
  SHUTDOWN_GRACE_MS: int(10_000, 0, 300_000),
});

export type Config = Readonly<z.output<typeof schema>>;
export type ConfigInput = Partial<Record<keyof z.input<typeof schema>, string>>;

export class ConfigError extends Error {}

/** Validates the environment; throws ConfigError listing every invalid setting by name. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    picked[key] = value === '' ? undefined : value;
  }
  const parsed = schema.safeParse(picked);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return Object.freeze(parsed.data);
}

/** The documented settings, for the README table and tests. */
export const SETTING_NAMES = Object.keys(schema.shape) as (keyof Config)[];
