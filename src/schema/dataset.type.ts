import { Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType('DatasetRecordCount', { description: 'Records (websites) of a dataset under one technology.' })
export class DatasetRecordCountType {
  @Field({ description: 'Technology name' })
  technology: string;

  @Field(() => Int)
  records: number;
}

@ObjectType('DatasetRecords')
export class DatasetRecordsType {
  @Field(() => [DatasetRecordCountType], { description: 'REST: an object, technology name → records' })
  counts: DatasetRecordCountType[];

  @Field(() => Int, { nullable: true, description: 'The subset limit asked for' })
  subset: number | null;
}

@ObjectType('DatasetQuery', { description: 'The echo of the request.' })
export class DatasetQueryType {
  @Field(() => [String])
  technologies: string[];

  @Field(() => [String])
  languages: string[];

  @Field(() => [String])
  tlds: string[];

  @Field()
  matchLangTld: boolean;
}

@ObjectType('DatasetFile')
export class DatasetFileType {
  @Field(() => String, { nullable: true, description: 'Signed, expiring ZIP link; null until complete' })
  url: string | null;
}

@ObjectType('DatasetOrder', { description: 'A dataset order: quoting → new (quoted) → paid → complete.' })
export class DatasetOrderType {
  @Field()
  orderRef: string;

  @Field({ description: 'quoting, new, paid, complete or failed' })
  status: string;

  @Field()
  description: string;

  @Field(() => Float, { description: 'Quoted price (records × DATASET_PRICE_PER_RECORD)' })
  amount: number;

  @Field()
  currency: string;

  @Field(() => DatasetRecordsType)
  records: DatasetRecordsType;

  @Field(() => DatasetQueryType)
  query: DatasetQueryType;

  @Field(() => DatasetFileType)
  dataset: DatasetFileType;

  @Field(() => String, { nullable: true, description: 'Why the last payment was declined, or why it failed' })
  error?: string | null;
}

@ObjectType('DatasetQuoted')
export class DatasetQuotedType {
  @Field()
  orderRef: string;
}

@ObjectType('DatasetConfirmed')
export class DatasetConfirmedType {
  @Field()
  orderStatus: string;
}
