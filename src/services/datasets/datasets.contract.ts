import { z } from 'zod';
import { languagesField, tldsField } from '../lists/lists.contract';
import { MAX_SUBSET, MAX_TECHNOLOGIES } from '../lists/lead-list-request';
import { field } from '../platform/request-schema';

/* The Dataset family's published contract: what a quote and a purchase take, and what they answer. */

/**
 * POST /dataset/v1/'s body and GraphQL's DatasetQuoteInput: technologies by name (or slug), the
 * languages and TLDs with the lead lists' rules (shared fields), the callback that receives the quote.
 */
export const DatasetQuoteRequest = z
  .object({
    technologies: field.list(field.item(200), {
      min: 1,
      max: MAX_TECHNOLOGIES,
      required: true,
      description: `Technology names, at most ${MAX_TECHNOLOGIES}`,
    }),
    languages: languagesField('ISO 639-1 language codes (xx or xx-yy)'),
    tlds: tldsField('Top-level domains, with or without the leading dot'),
    matchLanguageTld: field.flag({
      default: false,
      description: 'true: a website must match a language and a TLD (fewer results); false: either',
    }),
    subset: field.integer({
      min: 1,
      max: MAX_SUBSET,
      description: 'Only the n most trafficked websites per technology',
    }),
    callbackUrl: field.text({
      maxLength: 2048,
      rest: 'callback_url',
      restAlias: 'callbackUrl',
      description: 'Required: receives the quote, then the completed order',
    }),
  })
  .superRefine((input, ctx) => {
    if (!input.callbackUrl)
      ctx.addIssue({
        code: 'custom',
        path: ['callbackUrl'],
        message: '{name} is required: the quote is POSTed to it',
      });
  });

export type DatasetQuoteInput = z.output<typeof DatasetQuoteRequest>;

/** POST /dataset/v1/{orderRef} and GraphQL's datasetOrder. */
export const OrderRefRequest = z.object({
  orderRef: field.text({ maxLength: 40, required: true, description: 'The orderRef of the quote' }),
});

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
