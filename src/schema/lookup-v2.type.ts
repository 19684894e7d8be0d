import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { EnrichmentFieldsType } from './enrichment-fields.type';
import { TechnologyCategory } from './technology.type';

export enum SiteLookupState {
  FOUND = 'FOUND',
  ANALYSED = 'ANALYSED',
  ACCEPTED = 'ACCEPTED',
  FAILED = 'FAILED',
}
registerEnumType(SiteLookupState, {
  name: 'SiteLookupState',
  description:
    'FOUND: answered from the index; ANALYSED: one page analysed now; ACCEPTED: being crawled, the result follows by callback; FAILED: see errors',
});

@ObjectType({ description: 'A technology of a looked-up site' })
export class LookupTechnologyType {
  @Field()
  slug: string;

  @Field()
  name: string;

  @Field(() => String, {
    nullable: true,
    description: "CPE 2.3 name (version ANY), when the fingerprints or the project's CPE table give one",
  })
  cpe: string | null;

  @Field(() => [String], {
    description:
      'The CPE with each detected version in its version slot (CPE 2.3 quoting); empty without both',
  })
  versionedCpes: string[];

  @Field(() => [String])
  versions: string[];

  @Field(() => [TechnologyCategory])
  categories: TechnologyCategory[];

  @Field(() => Int, {
    nullable: true,
    description: "The site's traffic rank, 1 = most traffic (see the README: imported or observed)",
  })
  trafficRank: number | null;

  @Field(() => Int, { description: 'UNIX seconds of the last analysis that confirmed it' })
  confirmedAt: number;

  @Field(() => Int, { description: '0-100 (not part of the REST answer)' })
  confidence: number;

  @Field({
    description:
      "The fingerprint version of the analysis that last confirmed it (in a month: that month's latest); '' when stored before versions were recorded (not part of the REST answer)",
  })
  fingerprintsVersion: string;
}

@ObjectType({ description: 'One month of a site’s history (squash=false)' })
export class LookupTechnologyMonthType {
  @Field({ description: 'MM-YYYY' })
  monthYear: string;

  @Field(() => [LookupTechnologyType])
  technologies: LookupTechnologyType[];
}

@ObjectType({ description: 'GET /v2/lookup/: one URL, with the field sets asked for' })
export class SiteLookupType extends EnrichmentFieldsType {
  @Field()
  url: string;

  @Field(() => SiteLookupState)
  state: SiteLookupState;

  @Field(() => [LookupTechnologyType], {
    description: 'Current technologies (squash=true); for ACCEPTED, those already stored',
  })
  technologies: LookupTechnologyType[];

  @Field(() => [LookupTechnologyMonthType], {
    nullable: true,
    description: 'squash=false: one entry per month',
  })
  months: LookupTechnologyMonthType[] | null;

  @Field(() => [String], { description: 'Why the URL could not be analysed (FAILED)' })
  errors: string[];
}
