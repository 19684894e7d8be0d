import { z } from 'zod';
import { field } from '../platform/request-schema';

export const SITES_PAGE_DEFAULT = 20;
export const SITES_PAGE_MAX = 100;
export const LIST_PAGE_DEFAULT = 50;
export const LIST_PAGE_MAX = 500;
export const HISTORY_MONTHS_DEFAULT = 6;
export const HISTORY_MONTHS_MAX = 24;
/** The largest traffic rank a filter accepts. */
const RANK_MAX = 100_000_000;

const after = (what: string) =>
  field.text({
    maxLength: 12,
    pattern: /^[0-9]+$/,
    patternText: `must be an endCursor of this connection (${what})`,
    description: 'Continue after this cursor: the endCursor of the previous page',
  });

/** Which sites of the index (GraphQL's SiteFilter input): every field given narrows them. */
const SiteFilterFields = {
  countries: field.uniqueList(
    field
      .item(2, { pattern: /^[A-Za-z]{2}$/, patternText: 'must be a two-letter country code' })
      .transform((c) => c.toUpperCase()),
    { max: 50, description: 'Up to 50 ISO 3166-1 alpha-2 codes: only sites of these countries' },
  ),
  rankFrom: field.integer({
    min: 1,
    max: RANK_MAX,
    description:
      'Only sites whose traffic rank is at least this (1 = most traffic; unranked sites are left out)',
  }),
  rankTo: field.integer({
    min: 1,
    max: RANK_MAX,
    description: 'Only sites whose traffic rank is at most this (unranked sites are left out)',
  }),
  live: field.flag({
    default: true,
    description: 'true (default): sites running it now; false: sites it was removed from',
  }),
};

const VersionField = {
  version: field.text({
    maxLength: 60,
    pattern: /^[0-9A-Za-z][0-9A-Za-z.+-]*$/,
    patternText: 'must be a version (digits, letters, . + -)',
    description:
      'Only sites whose best version is this one or one under it (3 matches 3, 3.1 and 3.1.4, not 30)',
  }),
};

export const SiteFilterSchema = z.object({ ...SiteFilterFields, ...VersionField });
export const CategorySiteFilterSchema = z.object(SiteFilterFields);

const SitesPageFields = {
  first: field.integer({
    min: 1,
    max: SITES_PAGE_MAX,
    default: SITES_PAGE_DEFAULT,
    description: `Sites per page, 1 to ${SITES_PAGE_MAX}`,
  }),
  after: after('a site id'),
};

/** GraphQL technology(slug).sites(filter, first, after). */
export const TechnologySitesRequest = z.object({ ...SiteFilterFields, ...VersionField, ...SitesPageFields });
export type TechnologySitesInput = z.output<typeof TechnologySitesRequest>;

/** GraphQL category(slug).sites(filter, first, after): sites running any of its technologies. */
export const CategorySitesRequest = z.object({ ...SiteFilterFields, ...SitesPageFields });
export type SitesInput = z.output<typeof CategorySitesRequest> & { version?: string };

/** A page of a list held in full (a technology's versions, a category's technologies). */
export const ListPageRequest = z.object({
  first: field.integer({
    min: 1,
    max: LIST_PAGE_MAX,
    default: LIST_PAGE_DEFAULT,
    description: `Items per page, 1 to ${LIST_PAGE_MAX}`,
  }),
  after: after('a position'),
});
export type ListPageInput = z.output<typeof ListPageRequest>;

/** GraphQL site(domain).history(months). */
export const SiteHistoryRequest = z.object({
  months: field.integer({
    min: 1,
    max: HISTORY_MONTHS_MAX,
    default: HISTORY_MONTHS_DEFAULT,
    description: `Months of history up to the current one, 1 to ${HISTORY_MONTHS_MAX}`,
  }),
});
