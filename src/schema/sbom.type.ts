import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({
  description: 'A component of a site’s SBOM: a technology the index holds for the site, at one version',
})
export class SbomComponentType {
  @Field({ description: 'slug or slug@version: its bom-ref in the CycloneDX document' })
  ref: string;

  @Field()
  slug: string;

  @Field()
  name: string;

  @Field(() => String, { nullable: true, description: 'The detected version; null when none was detected' })
  version: string | null;

  @Field(() => String, { nullable: true, description: 'CPE 2.3 name (version ANY)' })
  cpe: string | null;

  @Field(() => String, { nullable: true, description: 'The CPE with this version in its version slot' })
  versionedCpe: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Package URL with the version, when the technology is a package',
  })
  purl: string | null;

  @Field({ description: 'CycloneDX component type: application, framework, library or operating-system' })
  type: string;

  @Field(() => [String])
  categories: string[];

  @Field(() => Int, { description: '0-100' })
  confidence: number;

  @Field(() => Int, { description: 'UNIX seconds the index first saw it on the site' })
  firstSeenAt: number;

  @Field(() => Int, { description: 'UNIX seconds of the last analysis that confirmed it' })
  lastSeenAt: number;

  @Field({ description: "The fingerprint version of that analysis ('' before versions were recorded)" })
  fingerprintsVersion: string;

  @Field(() => [String], { description: 'URLs of the pages whose latest reading found it' })
  pages: string[];
}

@ObjectType({
  description: 'What the index knows a site runs (GET /v2/sbom/ renders it as CycloneDX 1.6 JSON)',
})
export class SiteSbomType {
  @Field()
  url: string;

  @Field()
  hostname: string;

  @Field(() => Int, { description: 'UNIX seconds of the site’s last analysis' })
  lastAnalyzedAt: number;

  @Field(() => [SbomComponentType])
  components: SbomComponentType[];
}
