import { z } from 'zod';

/** POST /dataset/v1/: the quote is on its way to the callback. */
export const DatasetQuotedShape = z.object({ orderRef: z.string() });

/** POST /dataset/v1/{orderRef}: paid; the file follows by callback. */
export const DatasetConfirmedShape = z.object({ orderStatus: z.literal('paid') });

/** The spec's "Dataset order": the body of the quote and completion callbacks (components.schemas.DatasetOrder). */
export const DatasetOrderShape = z.object({
  orderRef: z.string(),
  status: z.enum(['new', 'complete']),
  description: z.string(),
  amount: z.number(),
  currency: z.string(),
  records: z.object({
    counts: z.record(z.string(), z.number().int()).optional(),
    subset: z.number().int().nullable().optional(),
  }),
  query: z.object({
    technologies: z.array(z.string()).optional(),
    languages: z.array(z.string()).optional(),
    tlds: z.array(z.string()).optional(),
    matchLangTld: z.boolean().optional(),
  }),
  dataset: z.object({ url: z.string().nullable().optional() }),
});
