import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'The TLS certificate of the home page (sets=security)' })
export class CertInfoType {
  @Field()
  issuer: string;

  @Field(() => String, { nullable: true, description: 'TLS protocol of the connection, e.g. TLSv1.3' })
  protocol?: string;

  @Field(() => Int, { nullable: true, description: 'UNIX seconds' })
  validTo?: number;
}

@ObjectType({ description: 'Mail-authentication records of the domain (sets=security)' })
export class DnsFactsType {
  @Field({ description: 'An SPF record (v=spf1) in the TXT records of the domain' })
  spf: boolean;

  @Field({ description: 'A DMARC record (v=DMARC1) at _dmarc' })
  dmarc: boolean;
}

@ObjectType({ description: 'A person the site names with a role (sets=contact)' })
export class EmployeeType {
  @Field()
  name: string;

  @Field()
  title: string;
}

/**
 * The enriched record's fields, flat and typed (see services/enrichment-fields.ts): each is null
 * unless its set was asked for and the site has a value. Shared by Lookup v2, Live v2 and Crawl v2.
 */
@ObjectType({ description: 'The enriched record of a site, flat: the fields of the field sets (sets=)' })
export abstract class EnrichmentFieldsType {
  @Field(() => String, { nullable: true, description: 'sets=meta: the home page title' })
  title?: string;

  @Field(() => String, { nullable: true, description: 'sets=meta: meta description (else og:description)' })
  description?: string;

  @Field(() => String, { nullable: true, description: 'sets=meta: the copyright statement' })
  copyright?: string;

  @Field(() => Int, { nullable: true, description: 'sets=meta: the latest year of the copyright statement' })
  copyrightYear?: number;

  @Field(() => Boolean, { nullable: true, description: 'sets=meta: the home page declares a viewport' })
  responsive?: boolean;

  @Field(() => [String], { nullable: true, description: 'sets=meta: schema.org types used on the pages' })
  schemaOrgTypes?: string[];

  @Field(() => String, { nullable: true, description: 'sets=company: the name the site states' })
  companyName?: string;

  @Field(() => String, {
    nullable: true,
    description: 'sets=company: a guess from the copyright holder, the title or the domain',
  })
  inferredCompanyName?: string;

  @Field(() => String, { nullable: true, description: 'sets=company' })
  industry?: string;

  @Field(() => String, { nullable: true, description: 'sets=company: the organisation description' })
  about?: string;

  @Field(() => String, { nullable: true, description: 'sets=company: 1-10, 11-50 … 10001+' })
  companySize?: string;

  @Field(() => String, { nullable: true, description: 'sets=company' })
  companyType?: string;

  @Field(() => Int, { nullable: true, description: 'sets=company: founding year' })
  companyFounded?: number;

  @Field(() => [String], { nullable: true, description: 'sets=company: "City, Region, Country"' })
  locations?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=phone: E.164 numbers' })
  phone?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=email' })
  email?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=email: accepted by the mail server' })
  verifiedEmail?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=email: the verifier says safe' })
  safeEmail?: string[];

  @Field(() => [EmployeeType], { nullable: true, description: 'sets=contact' })
  employees?: EmployeeType[];

  @Field(() => String, { nullable: true, description: 'sets=signals: Very low … Very high' })
  technologySpend?: string;

  @Field(() => String, { nullable: true, description: 'sets=signals: from the traffic rank' })
  trafficLevel?: string;

  @Field(() => String, { nullable: true, description: 'sets=locale: the home page language' })
  language?: string;

  @Field(() => [String], { nullable: true, description: 'sets=locale' })
  languages?: string[];

  @Field(() => String, { nullable: true, description: 'sets=locale: ISO 3166-1 alpha-2 (GeoIP)' })
  ipCountry?: string;

  @Field(() => String, { nullable: true, description: 'sets=locale (GeoIP)' })
  ipRegion?: string;

  @Field(() => [String], { nullable: true, description: 'sets=locale (GeoIP)' })
  ipCountries?: string[];

  @Field(() => CertInfoType, { nullable: true, description: 'sets=security' })
  certInfo?: CertInfoType;

  @Field(() => Boolean, { nullable: true, description: 'sets=security' })
  https?: boolean;

  @Field(() => DnsFactsType, { nullable: true, description: 'sets=security' })
  dns?: DnsFactsType;

  @Field(() => [String], { nullable: true, description: 'sets=trackers' })
  trackers?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=keywords' })
  keywords?: string[];

  @Field(() => Int, { nullable: true, description: 'sets=events: first seen (UNIX seconds)' })
  createdAt?: number;

  @Field(() => Int, { nullable: true, description: 'sets=events: last analysed (UNIX seconds)' })
  updatedAt?: number;

  @Field(() => Int, { nullable: true, description: 'sets=events: last attempt (UNIX seconds)' })
  crawlAttemptedAt?: number;

  @Field(() => [String], { nullable: true, description: 'sets=social: handles' })
  twitter?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=social: handles' })
  facebook?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=social: handles' })
  linkedin?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=social: handles' })
  instagram?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=social: handles' })
  github?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=social: handles' })
  youtube?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=social: handles' })
  tiktok?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=social: handles' })
  pinterest?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=social: handles' })
  xing?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=social: handles' })
  vimeo?: string[];

  @Field(() => [String], { nullable: true, description: 'sets=social: handles' })
  mastodon?: string[];
}
