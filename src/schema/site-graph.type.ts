import { Field, Int, ObjectType } from 'type-graphql';
import type { SitePage } from '../services/site-graph/site-graph.service';
import { CatalogueTechnology } from './catalogue.type';
import { ConnectionPageInfo, IndexedSite } from './change.type';
import { EnrichmentFieldsType } from './enrichment-fields.type';

type Node = abstract new (...args: never[]) => object;

/** The edge and connection types of a node type: `edges { cursor node }`, `nodes`, `pageInfo`. */
function connectionOf<T extends Node>(node: T, name: string, what: string) {
  @ObjectType(`${name}Edge`, { description: `A ${what} and its cursor.` })
  class Edge {
    @Field({ description: 'Pass as `after` to continue after this item' })
    cursor: string;

    @Field(() => node)
    node: InstanceType<T>;
  }

  @ObjectType(`${name}Connection`, { description: `A page of ${what}s.` })
  class Connection {
    @Field(() => [Edge])
    edges: Edge[];

    @Field(() => [node], { description: 'The nodes of `edges`' })
    nodes: InstanceType<T>[];

    @Field(() => ConnectionPageInfo)
    pageInfo: ConnectionPageInfo;
  }
  return Connection;
}

/** A list held in full as a connection page: the cursor is the item's position (1, 2, …). */
export function listPage<T>(items: readonly T[], first: number, after?: string) {
  const start = after === undefined ? 0 : Math.min(Number(after), items.length);
  const nodes = items.slice(start, start + first);
  return {
    nodes,
    edges: nodes.map((node, i) => ({ cursor: String(start + i + 1), node })),
    pageInfo: {
      hasNextPage: start + nodes.length < items.length,
      endCursor: nodes.length ? String(start + nodes.length) : null,
    },
    totalCount: items.length,
  };
}

@ObjectType({ description: 'A page of the sites of the index running a technology, by site id.' })
export class SiteConnection extends connectionOf(IndexedSite, 'Site', 'site') {
  /** The page as the service read it (totalCount counts on demand). */
  page: SitePage;
}

@ObjectType({ description: 'A version of a technology and the sites on which it is the best version.' })
export class TechnologyVersionCount {
  @Field({ description: "The version ('' for sites where no version is known)" })
  version: string;

  @Field(() => Int, { description: 'Sites on which it is live with this best version' })
  sites: number;
}

@ObjectType({ description: "A page of a technology's versions, most sites first." })
export class TechnologyVersionConnection extends connectionOf(
  TechnologyVersionCount,
  'TechnologyVersion',
  'version',
) {
  @Field(() => Int, { description: 'Versions in all' })
  totalCount: number;
}

@ObjectType({ description: "A page of a category's technologies." })
export class CatalogueTechnologyConnection extends connectionOf(
  CatalogueTechnology,
  'CatalogueTechnology',
  'technology',
) {
  @Field(() => Int, { description: 'Technologies in all' })
  totalCount: number;
}

@ObjectType('SiteEnrichment', {
  description: "A site's stored enriched record, every field set (null fields: no value known)",
})
export class SiteEnrichmentType extends EnrichmentFieldsType {}

@ObjectType({ description: 'A technology of a month of a site’s history.' })
export class SiteHistoryTechnology {
  @Field()
  slug: string;

  @Field()
  name: string;

  @Field(() => [String], { description: 'Category names' })
  categories: string[];

  @Field(() => [String], { description: 'Versions seen that month' })
  versions: string[];

  @Field(() => Int, { description: 'Recorded page views of the month on which it was detected' })
  hits: number;

  @Field(() => Int, { description: 'Highest confidence of the month, 0-100' })
  confidence: number;
}

@ObjectType({ description: 'A month of a site’s history (what Lookup v1 answers from).' })
export class SiteHistoryMonth {
  @Field({ description: 'YYYY-MM' })
  month: string;

  @Field(() => [String], { description: 'Language tags seen that month' })
  languages: string[];

  @Field(() => [SiteHistoryTechnology], { description: 'Most page views first' })
  technologies: SiteHistoryTechnology[];
}
