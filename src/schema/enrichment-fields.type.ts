import { EnrichmentFieldsShape, type EnrichmentFields } from '../services/analysis/enrichment-fields';
import { objectTypeOf } from './zod-graphql';

/**
 * The enriched record's fields, flat and typed, made from the one table of them
 * (services/analysis/enrichment-fields.ts): each is null unless its set was asked for and the site
 * has a value. The GraphQL types of Lookup v2, Live v2 and Crawl v2 extend it; it is not a type of
 * its own in the schema.
 */
export const EnrichmentFieldsType = objectTypeOf(
  EnrichmentFieldsShape,
  'EnrichmentFieldsType',
  'The enriched record of a site, flat: the fields of the field sets (sets=)',
) as abstract new () => EnrichmentFields;
