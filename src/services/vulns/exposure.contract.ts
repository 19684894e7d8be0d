import { z } from 'zod';
import { urlsField } from '../analysis/analysis.contract';
import { field } from '../platform/request-schema';
import { TREND_RANKS } from '../trends/trends.contract';

export const EXPOSED_SITES_LIMIT_DEFAULT = 100;
export const EXPOSED_SITES_LIMIT_MAX = 1000;

/** A vulnerability id as NVD and OSV write them (CVE-2020-11022, GHSA-gxr4-xjj5-5px2, PYSEC-…). */
export const VULNERABILITY_ID = /^[A-Za-z][A-Za-z0-9]{1,15}-[A-Za-z0-9._:-]{1,60}$/;

/** GET /v2/exposure/ (GraphQL exposure). */
export const ExposureRequest = z.object({
  urls: urlsField('One to ten comma-separated website URLs, answered from the index'),
});
export type ExposureInput = z.output<typeof ExposureRequest>;

export const VULNERABILITY_ID_TEXT =
  'must be a vulnerability id such as CVE-2020-11022 or GHSA-gxr4-xjj5-5px2';

const vulnerabilityIdField = (description: string) =>
  field.text({
    maxLength: 80,
    required: true,
    pattern: VULNERABILITY_ID,
    patternText: VULNERABILITY_ID_TEXT,
    description,
  });

/** The reverse query's `match`: the sites running an affected version, those possibly affected, or both. */
export const SITE_MATCHES = ['certain', 'possible', 'any'] as const;
export type SiteMatches = (typeof SITE_MATCHES)[number];

/** The filters and paging of the reverse query (also GraphQL's Vulnerability.affectedSites). */
export const ExposedSitesPaging = {
  countries: field.uniqueList(
    field
      .item(2, { pattern: /^[A-Za-z]{2}$/, patternText: 'must be a two-letter country code' })
      .transform((c) => c.toUpperCase()),
    { max: 50, description: 'Up to 50 ISO 3166-1 alpha-2 codes: only sites of these countries' },
  ),
  rank: field.choice(TREND_RANKS, {
    description: 'Only sites whose traffic rank is within this top (1000, 10000, 100000 or 1000000)',
  }),
  match: field.choice(SITE_MATCHES, {
    description:
      'certain (default): sites running an affected version; possible: sites running the technology with no ' +
      'version detected, so possibly affected; any: both, each technology flagged',
  }),
  first: field.integer({
    rest: 'limit',
    min: 1,
    max: EXPOSED_SITES_LIMIT_MAX,
    default: EXPOSED_SITES_LIMIT_DEFAULT,
    description: `Sites per page, 1 to ${EXPOSED_SITES_LIMIT_MAX}`,
  }),
  after: field.text({
    maxLength: 12,
    pattern: /^[0-9]+$/,
    patternText: 'must be a moreAfter value returned by this endpoint',
    description: 'Continue after this point: the moreAfter of a previous page',
  }),
};

/** GET /v2/exposure/sites/ (GraphQL exposedSites). */
export const ExposedSitesRequest = z.object({
  vulnerability: vulnerabilityIdField(
    'The vulnerability: its id or an alias (a CVE id also finds the OSV records that alias it)',
  ),
  ...ExposedSitesPaging,
});
export type ExposedSitesInput = z.output<typeof ExposedSitesRequest>;

/** GraphQL Vulnerability.affectedSites(countries, rank, first, after). */
export const AffectedSitesRequest = z.object(ExposedSitesPaging);

/** GraphQL vulnerability(id). */
export const VulnerabilityRequest = z.object({
  id: vulnerabilityIdField('A vulnerability id or alias (CVE-…, GHSA-…)'),
});

export const MATCH_CERTAINTIES = ['certain', 'possible'] as const;

export const VulnerabilityShape = z.strictObject({
  id: z.string().describe('The record id (CVE-… from NVD, GHSA-… or another OSV id)'),
  aliases: z.array(z.string()).describe('Other ids of the same vulnerability (merged records included)'),
  severity: z.string().optional().describe('CVSS rating: NONE, LOW, MEDIUM, HIGH or CRITICAL, when given'),
  score: z.number().optional().describe('CVSS base score (0-10), when given'),
  vector: z.string().optional().describe('The CVSS vector of the score (v4.0, else v3.1/v3.0)'),
  summary: z.string().describe('The record’s summary (NVD: the English description)'),
  published: z.number().int().optional().describe('UNIX seconds the record was published'),
  modified: z.number().int().describe('UNIX seconds the record was last modified'),
  references: z.array(z.string()).describe('Reference URLs (at most 20)'),
});
export type Vulnerability = z.output<typeof VulnerabilityShape>;

export const TechnologyVulnerabilityShape = VulnerabilityShape.extend({
  match: z
    .enum(MATCH_CERTAINTIES)
    .describe(
      'certain: the detected version is in an affected range; possible: no version was detected, so it may be',
    ),
  fixedVersions: z.array(z.string()).describe('Versions that fix it, as the records state them'),
  versions: z
    .array(z.string())
    .describe(
      'The versions on the site it matches: those in an affected range when certain, those without a number ' +
        'to compare when possible; empty when no version was detected',
    ),
});
export type TechnologyVulnerability = z.output<typeof TechnologyVulnerabilityShape>;

const ExposedTechnologyShape = z.strictObject({
  technology: z.string().describe('Technology slug'),
  name: z.string().describe('Technology name'),
  version: z
    .string()
    .optional()
    .describe('A version on the site now: the best known one, when several (absent: none detected)'),
  versions: z
    .array(z.string())
    .describe(
      'Every version on the site now, each judged (a theme’s and a plugin’s copy of a library); empty when none was detected',
    ),
  vulnerabilities: z.array(TechnologyVulnerabilityShape.meta({ graphqlType: 'TechnologyVulnerability' })),
});

export const ExposureItemShape = z.strictObject({
  url: z.string(),
  domain: z.string().optional().describe('The site in the index (absent when it is not there)'),
  technologies: z
    .array(ExposedTechnologyShape.meta({ graphqlType: 'ExposedTechnology' }))
    .describe('The live technologies with at least one known vulnerability'),
  errors: z.array(z.string()).optional().describe('Why the URL has no answer (not in the index)'),
});
export type ExposureItem = z.output<typeof ExposureItemShape>;

const ExposedSiteShape = z.strictObject({
  domain: z.string().describe('The site (its index key)'),
  country: z.string().optional(),
  trafficRank: z.number().int().optional(),
  technologies: z
    .array(
      z
        .strictObject({
          technology: z.string(),
          name: z.string(),
          version: z
            .string()
            .optional()
            .describe(
              'A version on the site that matched, the first of `versions` (absent only for a possible match: none detected)',
            ),
          versions: z
            .array(z.string())
            .describe(
              'Every version on the site that matched, in version order: a site running two affected versions is listed once',
            ),
          match: z
            .enum(MATCH_CERTAINTIES)
            .describe(
              'certain: a version is in an affected range; possible: no version was detected (or none with a number)',
            ),
        })
        .meta({ graphqlType: 'ExposedSiteTechnology' }),
    )
    .describe('The affected technologies it runs, with the versions'),
});

const ExposedSitesFields = {
  sites: z.array(ExposedSiteShape.meta({ graphqlType: 'ExposedSite' })).describe('In index order'),
  moreAfter: z.string().optional().describe('Present only when more sites match: pass it as `after`'),
};

/** GraphQL Vulnerability.affectedSites: a page of sites. */
export const ExposedSitesShape = z.strictObject(ExposedSitesFields);

export const ExposedSitesPageShape = z.strictObject({
  vulnerability: VulnerabilityShape.meta({ graphqlType: 'Vulnerability' }),
  ...ExposedSitesFields,
});
export type ExposedSitesPage = z.output<typeof ExposedSitesPageShape>;
