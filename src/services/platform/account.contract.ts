import { z } from 'zod';

/** GET /v2/credits/balance/. */
export const CreditBalanceShape = z.object({ credits: z.number().int() });

/** GET <resource path>/usage: the plan's throttle and quota for the path's family. */
export const UsageShape = z.object({
  api: z.object({
    throttle: z.object({ rateLimit: z.number().int().describe('Requests per second') }),
    quota: z.object({ limit: z.number().int(), period: z.enum(['DAY', 'MONTH']) }),
  }),
  plan: z.object({
    name: z.string(),
    quota: z.object({
      remaining: z.number().int().describe('An estimate, updated as requests are counted'),
    }),
  }),
});
