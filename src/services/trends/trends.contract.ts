import { z } from 'zod';
import { field } from '../platform/request-schema';

export const TREND_MONTHS_DEFAULT = 12;
export const TREND_MONTHS_MAX = 60;
/** The tops `rank` accepts: the rank buckets of the aggregates (see trend-writer.ts). */
export const TREND_RANKS = ['1000', '10000', '100000', '1000000'] as const;

const slug = (what: string) =>
  field.text({
    maxLength: 120,
    required: true,
    pattern: /^[a-z0-9][a-z0-9._+-]*$/,
    patternText: `must be a ${what} slug`,
    description: `The ${what}'s slug (as in /v2/${what === 'technology' ? 'technologies' : 'categories'}/)`,
  });

/** The filters both trends take. */
const TrendFilterFields = {
  months: field.integer({
    min: 1,
    max: TREND_MONTHS_MAX,
    default: TREND_MONTHS_DEFAULT,
    description: `Months in the series, the last being \`until\` (1 to ${TREND_MONTHS_MAX}, default ${TREND_MONTHS_DEFAULT})`,
  }),
  until: field.text({
    maxLength: 7,
    pattern: /^(19|20|21)\d\d-(0[1-9]|1[0-2])$/,
    patternText: 'must be a month as YYYY-MM',
    description: 'The last month of the series, YYYY-MM (default: the current month, UTC)',
  }),
  countries: field.uniqueList(
    field
      .item(2, { pattern: /^[A-Za-z]{2}$/, patternText: 'must be a two-letter country code' })
      .transform((c) => c.toUpperCase()),
    {
      max: 50,
      description:
        'Up to 50 ISO 3166-1 alpha-2 codes: only sites of these countries, in the counts and in the ' +
        'share (default: every site, those of unknown country included)',
    },
  ),
  rank: field.choice(TREND_RANKS, {
    description:
      'Only sites whose traffic rank is within this top (1000, 10000, 100000 or 1000000), in the counts and ' +
      'in the share (default: every site, unranked ones included)',
  }),
};

/** GET /v2/trends/{slug}/ (GraphQL technologyTrend). */
export const TechnologyTrendRequest = z.object({
  slug: slug('technology'),
  ...TrendFilterFields,
  version: field.text({
    maxLength: 60,
    description:
      'Only sites running this version or a version under it (3 matches 3, 3.1 and 3.1.4, not 30): the ' +
      'counts, the share and the distribution',
  }),
});
export type TechnologyTrendInput = z.output<typeof TechnologyTrendRequest>;

/** GET /v2/trends/categories/{slug}/ (GraphQL categoryTrend). */
export const CategoryTrendRequest = z.object({ slug: slug('category'), ...TrendFilterFields });
export type CategoryTrendInput = z.output<typeof CategoryTrendRequest>;

const VersionShareShape = z.strictObject({
  version: z.string(),
  sites: z.number().int().min(0).describe('Sites on which this version was seen in the month'),
});

const TrendMonthShape = z.strictObject({
  month: z.string().describe('YYYY-MM'),
  sites: z.number().int().min(0).describe('Sites on which it was seen in the month'),
  analysedSites: z
    .number()
    .int()
    .min(0)
    .describe('Sites the index analysed in the month (the same countries and rank), the share’s denominator'),
  share: z.number().min(0).describe('sites / analysedSites (0 when nothing was analysed), 6 decimals'),
  versions: z
    .array(VersionShareShape)
    .describe('Technology trends: the versions seen, most sites first (at most 100); empty for categories'),
  fingerprintsVersions: z
    .array(z.string())
    .describe('The fingerprint versions whose rules saw it in the month'),
  fingerprintsChanged: z
    .boolean()
    .describe(
      'A fingerprint version saw it this month that did not the month before (which had one): a rule change, ' +
        'which may explain a jump or a drop',
    ),
});

/** The answer of both trends. */
export const TrendShape = z.strictObject({
  slug: z.string(),
  name: z.string(),
  months: z.array(TrendMonthShape).describe('Oldest first, every month of the window (zeros included)'),
});

export type TrendMonth = z.output<typeof TrendMonthShape>;
export type Trend = z.output<typeof TrendShape>;
