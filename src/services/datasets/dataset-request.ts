import type { Fingerprints } from '../../detection';
import { ValidationError } from '../../errors';
import { toListRequest, type ListRequest } from '../lists/lead-list-request';
import { ListCreateRequest } from '../lists/lists.contract';
import type { DatasetQuoteInput } from './datasets.contract';

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
