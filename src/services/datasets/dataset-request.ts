import { z } from 'zod';
import type { Fingerprints } from '../../detection';
import { ValidationError } from '../../errors';
import { field } from '../platform/request-schema';
import {
  languagesField,
  ListCreateRequest,
  MAX_SUBSET,
  MAX_TECHNOLOGIES,
  tldsField,
  toListRequest,
  type ListRequest,
} from '../lists/lead-list-request';

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

/** The echo of the request in every order: the spec's `query` object (and the subset). */
export interface DatasetQuery {
  technologies: string[];
  languages: string[];
  tlds: string[];
  matchLangTld: boolean;
  subset: number | null;
}

export interface DatasetRequest {
  query: DatasetQuery;
  callbackUrl: string;
  /** The same request as a lead list: what the calculator and the file writer read. */
  list: ListRequest;
}

export const ORDER_REF_PATTERN = /^ds_[a-f0-9]{24}$/;

/**
 * The dataset request as the service runs it: each technology known to the catalogue (by name,
 * else by slug), and the same request as a lead list.
 */
export function toDatasetRequest(input: DatasetQuoteInput, fingerprints: Fingerprints): DatasetRequest {
  const technologies = input.technologies.map((name, i) => {
    const known = fingerprints.technologyByName(name) ?? fingerprints.technologyBySlug(name.toLowerCase());
    if (!known)
      throw new ValidationError(
        'technologies',
        `technologies[${i}]: unknown technology ${JSON.stringify(name)}`,
      );
    return known;
  });
  // A lead list of these technologies with the lists' defaults, and the dataset's filters.
  const list = toListRequest({
    ...ListCreateRequest.parse({ technologies: technologies.map((t) => ({ slug: t.slug })) }),
    languages: input.languages,
    tlds: input.tlds,
    subset: input.subset,
  });
  list.languageOrTld = !input.matchLanguageTld;
  return {
    query: {
      technologies: technologies.map((t) => t.name),
      languages: list.languages,
      tlds: list.tlds,
      matchLangTld: input.matchLanguageTld,
      subset: list.subset,
    },
    callbackUrl: input.callbackUrl!,
    list,
  };
}
