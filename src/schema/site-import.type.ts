import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'What an import of a ranked domain list did (the summary of sites:import).' })
export class SiteImportResult {
  @Field(() => Int, { description: 'Lines read (a Majestic header included)' })
  read: number;

  @Field(() => Int, { description: 'Domains whose rank was stored' })
  imported: number;

  @Field(() => Int, { description: 'Lines without a valid domain or rank' })
  invalid: number;

  @Field(() => [Int], { description: 'Line numbers of the first 100 invalid lines' })
  invalidLines: number[];

  @Field(() => Int, { description: 'Later lines of a domain already imported (its first rank is kept)' })
  duplicates: number;

  @Field(() => Int, { description: 'site.index jobs enqueued (crawl: true); never twice for a domain' })
  queued: number;

  @Field(() => Int, { description: 'Sites already in the index whose rank this import set' })
  sitesRanked: number;
}
