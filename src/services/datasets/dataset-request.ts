import { ValidationError } from '../../errors';
import type { Fingerprints } from '../../detection';
import { MAX_TECHNOLOGIES, parseListRequest, type ListRequest } from '../lists/lead-list-request';

/** What a client may send to POST /dataset/v1/ (GraphQL input or REST body). */
export interface DatasetQuoteInput {
  technologies?: string[] | null;
  languages?: string[] | null;
  tlds?: string[] | null;
  matchLanguageTld?: boolean | null;
  subset?: number | null;
  callbackUrl?: string | null;
}

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
 * Validates a dataset request: technologies are names (WordPress) or slugs, each known to the
 * catalogue; languages, tlds and subset follow the lead lists' rules (shared parser), so a bad
 * value is a ValidationError naming the field in the same words.
 */
export function parseDatasetRequest(input: DatasetQuoteInput, fingerprints: Fingerprints): DatasetRequest {
  if (typeof input !== 'object' || input === null)
    throw new ValidationError('body', 'The request body must be a JSON object');
  const names = input.technologies;
  if (!Array.isArray(names) || names.length === 0)
    throw new ValidationError('technologies', 'technologies must name at least one technology');
  if (names.length > MAX_TECHNOLOGIES)
    throw new ValidationError('technologies', `technologies must hold at most ${MAX_TECHNOLOGIES} items`);
  const technologies = names.map((name, i) => {
    const known =
      typeof name === 'string'
        ? (fingerprints.technologyByName(name.trim()) ??
          fingerprints.technologyBySlug(name.trim().toLowerCase()))
        : undefined;
    if (!known)
      throw new ValidationError(
        'technologies',
        `technologies[${i}]: unknown technology ${JSON.stringify(name)}`,
      );
    return known;
  });
  if (typeof input.callbackUrl !== 'string' || input.callbackUrl.trim() === '')
    throw new ValidationError('callback_url', 'callback_url is required: the quote is POSTed to it');
  if (
    input.matchLanguageTld !== undefined &&
    input.matchLanguageTld !== null &&
    typeof input.matchLanguageTld !== 'boolean'
  )
    throw new ValidationError('matchLanguageTld', 'matchLanguageTld must be true or false');
  const matchLangTld = input.matchLanguageTld ?? false;
  const list = parseListRequest({
    technologies: technologies.map((t) => ({ slug: t.slug })),
    languages: input.languages,
    tlds: input.tlds,
    subset: input.subset,
  });
  list.languageOrTld = !matchLangTld;
  return {
    query: {
      technologies: technologies.map((t) => t.name),
      languages: list.languages,
      tlds: list.tlds,
      matchLangTld,
      subset: list.subset,
    },
    callbackUrl: input.callbackUrl.trim(),
    list,
  };
}
