import { z } from 'zod';
import type { EnrichmentSet, SiteEnrichment } from '../../enrichment';

/** A union of object types as the one object type holding all their fields. */
type AllOf<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/**
 * The enriched record as the published answers carry it: the requested field sets side by side on
 * one flat object (the spec's "Enriched lookup record"). Lookup v2, Live v2 and Crawl v2 (`sets=`),
 * their callbacks and their GraphQL types all read this one shape.
 */
export type EnrichmentFields = AllOf<SiteEnrichment[EnrichmentSet]>;

/** A field of the set `set`: optional (absent when the site has no value or the set was not asked for). */
function inSet<T extends z.ZodType>(set: EnrichmentSet, schema: T, description?: string) {
  const text = !description
    ? `sets=${set}`
    : description.startsWith('(')
      ? `sets=${set} ${description}`
      : `sets=${set}: ${description}`;
  return schema.optional().meta({ set, description: text });
}

const text = z.string();
const texts = z.array(z.string());
const year = z.number().int();
const handles = () => inSet('social', texts, 'handles');

const EmployeeShape = z.object({ name: z.string(), title: z.string() }).meta({
  graphqlType: 'EmployeeType',
  typeDescription: 'A person the site names with a role (sets=contact)',
});
const CertInfoShape = z
  .object({
    issuer: z.string(),
    protocol: z.string().describe('TLS protocol of the connection, e.g. TLSv1.3').optional(),
    validTo: z.number().int().describe('UNIX seconds').optional(),
  })
  .meta({
    graphqlType: 'CertInfoType',
    typeDescription: 'The TLS certificate of the home page (sets=security)',
  });
const DnsFactsShape = z
  .object({
    spf: z.boolean().describe('An SPF record (v=spf1) in the TXT records of the domain'),
    dmarc: z.boolean().describe('A DMARC record (v=DMARC1) at _dmarc'),
  })
  .meta({
    graphqlType: 'DnsFactsType',
    typeDescription: 'Mail-authentication records of the domain (sets=security)',
  });

/**
 * Every field of the enriched record, in its published order, with the field set it belongs to:
 * the one table of set membership. The REST answers write the fields in this order, the GraphQL
 * types (UrlAnalysis, SiteLookupType) are made with them, and a set's fields are read from here.
 */
export const EnrichmentFieldsShape = z.object({
  title: inSet('meta', text, 'the home page title'),
  description: inSet('meta', text, 'meta description (else og:description)'),
  copyright: inSet('meta', text, 'the copyright statement'),
  copyrightYear: inSet('meta', year, 'the latest year of the copyright statement'),
  responsive: inSet('meta', z.boolean(), 'the home page declares a viewport'),
  schemaOrgTypes: inSet('meta', texts, 'schema.org types used on the pages'),
  companyName: inSet('company', text, 'the name the site states'),
  inferredCompanyName: inSet('company', text, 'a guess from the copyright holder, the title or the domain'),
  industry: inSet('company', text),
  about: inSet('company', text, 'the organisation description'),
  companySize: inSet('company', text, '1-10, 11-50 … 10001+'),
  companyType: inSet('company', text),
  companyFounded: inSet('company', year, 'founding year'),
  locations: inSet('company', texts, '"City, Region, Country"'),
  phone: inSet('phone', texts, 'E.164 numbers'),
  email: inSet('email', texts),
  verifiedEmail: inSet('email', texts, 'accepted by the mail server'),
  safeEmail: inSet('email', texts, 'the verifier says safe'),
  employees: inSet('contact', z.array(EmployeeShape)),
  technologySpend: inSet('signals', text, 'Very low … Very high'),
  trafficLevel: inSet('signals', text, 'from the traffic rank'),
  language: inSet('locale', text, 'the home page language'),
  languages: inSet('locale', texts),
  ipCountry: inSet('locale', text, 'ISO 3166-1 alpha-2 (GeoIP)'),
  ipRegion: inSet('locale', text, '(GeoIP)'),
  ipCountries: inSet('locale', texts, '(GeoIP)'),
  certInfo: inSet('security', CertInfoShape),
  https: inSet('security', z.boolean()),
  dns: inSet('security', DnsFactsShape),
  trackers: inSet('trackers', texts),
  keywords: inSet('keywords', texts),
  createdAt: inSet('events', year, 'first seen (UNIX seconds)'),
  updatedAt: inSet('events', year, 'last analysed (UNIX seconds)'),
  crawlAttemptedAt: inSet('events', year, 'last attempt (UNIX seconds)'),
  twitter: handles(),
  facebook: handles(),
  linkedin: handles(),
  instagram: handles(),
  github: handles(),
  youtube: handles(),
  tiktok: handles(),
  pinterest: handles(),
  xing: handles(),
  vimeo: handles(),
  mastodon: handles(),
});

/** The fields of each set, from the table. */
export const FIELDS_OF_SET: Readonly<Record<EnrichmentSet, readonly (keyof EnrichmentFields)[]>> = (() => {
  const bySet = {} as Record<EnrichmentSet, (keyof EnrichmentFields)[]>;
  for (const [field, schema] of Object.entries(EnrichmentFieldsShape.shape)) {
    const { set } = schema.meta() as { set: EnrichmentSet };
    (bySet[set] ??= []).push(field as keyof EnrichmentFields);
  }
  return bySet;
})();

/** The published field order. */
export const ENRICHMENT_FIELD_ORDER = Object.keys(EnrichmentFieldsShape.shape) as (keyof EnrichmentFields)[];

// The table and the library's types say the same (a field added to one and not the other fails here).
type Table = z.output<typeof EnrichmentFieldsShape>;
const _tableHoldsTheRecord: Required<Record<keyof EnrichmentFields, unknown>> = {} as Required<
  Record<keyof Table, unknown>
>;
const _recordHoldsTheTable: Required<Record<keyof Table, unknown>> = {} as Required<
  Record<keyof EnrichmentFields, unknown>
>;
void _tableHoldsTheRecord;
void _recordHoldsTheTable;

/** The requested sets of a stored record, flattened, in the published order; a set the record lacks adds nothing. */
export function flattenSets(
  enrichment: SiteEnrichment | null,
  sets: readonly EnrichmentSet[],
): EnrichmentFields {
  const out: Record<string, unknown> = {};
  if (!enrichment) return out;
  const merged: Record<string, unknown> = {};
  for (const set of sets) Object.assign(merged, enrichment[set] ?? {});
  for (const field of ENRICHMENT_FIELD_ORDER) if (merged[field] !== undefined) out[field] = merged[field];
  return out as EnrichmentFields;
}
