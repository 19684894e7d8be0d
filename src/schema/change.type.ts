import type { SiteEntity } from '../storage/entities';
import { Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A technology added to, removed from, or changing version on a site.' })
export class TechnologyChange {
  @Field(() => Int, {
    description: 'The change id: it only grows (pass it as `after` to read what came later)',
  })
  id: number;

  @Field({ description: 'The site (host without www., with a port when not the default)' })
  domain: string;

  @Field({ description: 'Technology slug' })
  technology: string;

  @Field({ description: 'Technology name' })
  name: string;

  @Field({ description: 'added, removed, or version; vulnerability (an extension, only when asked for)' })
  kind: string;

  @Field(() => String, { nullable: true, description: 'The version before (when known)' })
  fromVersion: string | null;

  @Field(() => String, { nullable: true, description: 'The version after (when known)' })
  toVersion: string | null;

  @Field(() => Int, { description: 'UNIX seconds of the analysis that saw the change' })
  at: number;

  @Field(() => String, {
    nullable: true,
    description: 'The fingerprint version of that analysis (null for changes backfilled from older history)',
  })
  fingerprintsVersion: string | null;

  @Field(() => ChangeVulnerability, {
    nullable: true,
    description: 'vulnerability changes: what affects the technology (null for the other kinds)',
  })
  vulnerability: ChangeVulnerability | null;
}

@ObjectType({ description: 'The vulnerability of a vulnerability change.' })
export class ChangeVulnerability {
  @Field({ description: 'The vulnerability record id (CVE-…, GHSA-…)' })
  id: string;

  @Field(() => [String], { description: 'Its other ids' })
  aliases: string[];

  @Field(() => String, { nullable: true, description: 'CVSS severity' })
  severity: string | null;

  @Field(() => Float, { nullable: true, description: 'CVSS base score' })
  score: number | null;

  @Field({ description: 'certain: the detected version is affected; possible: no version was detected' })
  match: string;
}

@ObjectType({ description: 'A change and its cursor.' })
export class TechnologyChangeEdge {
  @Field({ description: 'Pass as `after` to continue after this change' })
  cursor: string;

  @Field(() => TechnologyChange)
  node: TechnologyChange;
}

@ObjectType('ConnectionPageInfo', { description: 'Where a page of a connection ends.' })
export class ConnectionPageInfo {
  @Field({ description: 'Whether more items follow this page' })
  hasNextPage: boolean;

  @Field(() => String, { nullable: true, description: 'The cursor of the last item of the page' })
  endCursor: string | null;
}

@ObjectType({ description: 'A page of the change log, in the order changes were recorded.' })
export class TechnologyChangeConnection {
  @Field(() => [TechnologyChangeEdge])
  edges: TechnologyChangeEdge[];

  @Field(() => [TechnologyChange], { description: 'The nodes of `edges`' })
  nodes: TechnologyChange[];

  @Field(() => ConnectionPageInfo)
  pageInfo: ConnectionPageInfo;
}

@ObjectType({
  description: 'A version of a technology on a site, and when analyses first and last reported it.',
})
export class VersionSighting {
  @Field()
  version: string;

  @Field(() => Int, { description: 'UNIX seconds' })
  firstSeenAt: number;

  @Field(() => Int, { description: 'UNIX seconds' })
  lastSeenAt: number;
}

@ObjectType({ description: "A technology's timeline on a site." })
export class SiteTechnologyTimeline {
  @Field({ description: 'Technology slug' })
  slug: string;

  @Field()
  name: string;

  @Field(() => String, { nullable: true, description: 'Best known version' })
  version: string | null;

  @Field(() => Int, { description: '0-100, from the analysis that last confirmed it' })
  confidence: number;

  @Field({
    description:
      'On the site now: false once an analysis read every page where it had been found and found it on none',
  })
  live: boolean;

  @Field(() => Int, { description: 'UNIX seconds, first seen' })
  firstSeenAt: number;

  @Field(() => Int, { description: 'UNIX seconds, last seen' })
  lastSeenAt: number;

  @Field(() => Int, { nullable: true, description: 'UNIX seconds of its last removal (null: never removed)' })
  removedAt: number | null;

  @Field(() => [String], {
    description: 'Paths of the pages whose latest reading found it ("*": some crawled page)',
  })
  evidencePaths: string[];

  @Field(() => [VersionSighting], { description: 'Versions seen, in the order first seen' })
  versions: VersionSighting[];

  @Field(() => [String], {
    description:
      'The versions on the site now, in version order: those the latest readings of its pages found (a theme’s ' +
      'and a plugin’s copy of a library are two); empty when none is known or it is no longer on the site',
  })
  currentVersions: string[];
}

@ObjectType({ description: 'A site of the index with the timeline of its technologies.' })
export class IndexedSite {
  @Field({ description: 'The site (host without www., with a port when not the default)' })
  domain: string;

  @Field({ description: 'Its registrable domain' })
  registrableDomain: string;

  @Field(() => Int, { description: 'UNIX seconds, first analysed' })
  firstSeenAt: number;

  @Field(() => Int, { description: 'UNIX seconds, last analysed' })
  lastAnalyzedAt: number;

  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2 country, when known' })
  country: string | null;

  @Field(() => Int, { nullable: true, description: 'Traffic rank, 1 = most traffic (null: unranked)' })
  trafficRank: number | null;

  @Field(() => [SiteTechnologyTimeline], { description: 'Every technology ever seen on it, live ones first' })
  technologies: SiteTechnologyTimeline[];

  /** Its row of the index: what the graph's other fields of the site read. */
  row: SiteEntity;
}
