import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A category of technologies' })
export class TechnologyCategory {
  @Field(() => Int)
  id: number;

  @Field()
  slug: string;

  @Field()
  name: string;
}

@ObjectType({ description: 'Why a technology was detected: the pattern and what it matched' })
export class DetectionEvidence {
  @Field({
    description:
      'Pattern kind: url, html, headers, cookies, meta, scriptSrc, scripts, dom, dns, js and xhr (a rendered page), implies...',
  })
  kind: string;

  @Field(() => String, {
    nullable: true,
    description: 'Header, cookie, meta or DNS record name; CSS selector',
  })
  key: string | null;

  @Field()
  pattern: string;

  @Field()
  matched: string;
}

@ObjectType({ description: 'A technology detected on a site' })
export class DetectedTechnologyType {
  @Field()
  slug: string;

  @Field()
  name: string;

  @Field({ description: "Best single version, '' when unknown" })
  version: string;

  @Field(() => [String])
  versions: string[];

  @Field(() => [TechnologyCategory])
  categories: TechnologyCategory[];

  @Field(() => Int, { description: '0-100' })
  confidence: number;

  @Field()
  icon: string;

  @Field()
  website: string;

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

  @Field({ description: 'Found only because another detected technology implies it' })
  implied: boolean;

  @Field(() => Int, { description: 'UNIX seconds of the analysis that confirmed it' })
  confirmedAt: number;

  @Field(() => [DetectionEvidence])
  evidence: DetectionEvidence[];

  @Field({
    description:
      'The fingerprint version that produced this detection and its evidence (the same for every technology of one analysis)',
  })
  fingerprintsVersion: string;

  /** Index key of the analysed site: lets field resolvers ask the index about this technology. */
  siteHostname: string;
}
