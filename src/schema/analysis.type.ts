import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { EnrichmentFieldsType } from './enrichment-fields.type';
import { DetectedTechnologyType } from './technology.type';

@ObjectType({ description: 'Why a site could not be analysed' })
export class AnalysisError {
  @Field({ description: 'RESPONSE_NOT_OK, NO_RESPONSE or NO_HTML_DOCUMENT' })
  type: string;

  @Field()
  message: string;
}

export enum UrlAnalysisState {
  ANALYSED = 'analysed',
  FAILED = 'failed',
  ACCEPTED = 'accepted',
}
registerEnumType(UrlAnalysisState, {
  name: 'UrlAnalysisState',
  description: 'analysed now, failed now, or accepted for analysis with a callback',
});

@ObjectType({ description: 'A technology only a browser could have found (js or xhr patterns), not tried' })
export class SkippedTechnologyType {
  @Field()
  slug: string;

  @Field()
  name: string;

  @Field({ description: 'The pattern kind that needs a browser: js or xhr' })
  reason: string;
}

@ObjectType({
  description:
    'The analysis of one URL (Analyze v1, Live v2, Crawl v2), with the field sets asked for (sets=)',
})
export class UrlAnalysis extends EnrichmentFieldsType {
  @Field()
  url: string;

  @Field(() => UrlAnalysisState)
  state: UrlAnalysisState;

  @Field(() => [DetectedTechnologyType])
  technologies: DetectedTechnologyType[];

  @Field(() => [AnalysisError])
  errors: AnalysisError[];

  @Field(() => String, {
    nullable: true,
    description:
      'Browser rendering of the page: rendered, off, not-needed (auto found no reason), unavailable (no browser installed) or failed (the static result stands); null unless analysed',
  })
  render: string | null;

  @Field(() => [SkippedTechnologyType], {
    description:
      'Technologies the page hints at that only a browser could confirm, left untried (empty once rendered)',
  })
  skipped: SkippedTechnologyType[];
}

@ObjectType()
export class LookupApplication {
  @Field()
  name: string;

  @Field()
  slug: string;

  @Field(() => [String])
  categories: string[];

  @Field(() => [String])
  versions: string[];

  @Field(() => Int, { description: 'Recorded page views of the site that month on which it was detected' })
  hits: number;

  @Field(() => Int)
  confidence: number;
}

@ObjectType()
export class LookupMonthType {
  @Field({ description: 'MM-YYYY' })
  monthYear: string;

  @Field(() => [String])
  languages: string[];

  @Field(() => [LookupApplication])
  applications: LookupApplication[];
}

export enum LookupStatus {
  FOUND = 'found',
  RECEIVED = 'received',
  NOT_FOUND = 'not-found',
}
registerEnumType(LookupStatus, { name: 'LookupStatus' });

@ObjectType({ description: 'Lookup v1: the stored months, or indexing accepted, or nothing stored' })
export class LookupResult {
  @Field(() => LookupStatus)
  status: LookupStatus;

  @Field(() => [LookupMonthType])
  months: readonly LookupMonthType[];
}

@ObjectType({ description: 'An analysis of the caller finished' })
export class AnalysisCompleted {
  @Field()
  url: string;

  @Field()
  ok: boolean;

  @Field(() => [String], { description: 'Slugs of the technologies found' })
  technologies: string[];

  @Field(() => Int)
  pages: number;
}
