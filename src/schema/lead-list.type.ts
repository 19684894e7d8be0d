import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('ListCategory', { description: 'A category of a list technology.' })
export class ListCategoryType {
  @Field()
  slug: string;

  @Field()
  name: string;
}

@ObjectType('ListTechnology', { description: 'A technology of a lead list: one file and one rows entry.' })
export class ListTechnologyType {
  @Field()
  slug: string;

  @Field()
  name: string;

  @Field(() => [ListCategoryType])
  categories: ListCategoryType[];

  @Field({ description: 'Version operator: =, >= or <=' })
  operator: string;

  @Field(() => String, { nullable: true, description: 'null: any version' })
  version: string | null;
}

@ObjectType('ListRowCount', { description: 'Websites of a list under one technology.' })
export class ListRowCountType {
  @Field()
  slug: string;

  @Field(() => Int)
  rows: number;
}

@ObjectType('ListSetRowCount', { description: 'Websites of a list holding a value in one field set.' })
export class ListSetRowCountType {
  @Field()
  set: string;

  @Field(() => Int)
  rows: number;
}

@ObjectType('LeadListSummary', { description: 'A lead list, summary form (GET /v2/lists/).' })
export class LeadListSummaryType {
  @Field({ description: 'lst_…' })
  id: string;

  @Field(() => Int, { description: 'UNIX seconds' })
  createdAt: number;

  @Field({ description: 'Calculating, Ready, Failed, Insufficient or Complete' })
  status: string;

  @Field(() => Int, { description: 'Price in credits (1 per website)' })
  totalCredits: number;

  @Field(() => [ListTechnologyType])
  technologies: ListTechnologyType[];

  @Field(() => [String])
  keywords: string[];

  @Field(() => Int, { description: 'Rows of all technology files together' })
  rows: number;
}

@ObjectType('LeadList', { description: 'A lead list, full form (GET /v2/lists/{id}).' })
export class LeadListType {
  @Field()
  id: string;

  @Field(() => Int)
  createdAt: number;

  @Field()
  status: string;

  @Field(() => [ListTechnologyType])
  technologies: ListTechnologyType[];

  @Field(() => [String])
  keywords: string[];

  @Field(() => [String])
  languages: string[];

  @Field(() => [String])
  countries: string[];

  @Field(() => [String])
  industries: string[];

  @Field(() => [String])
  companySizes: string[];

  @Field(() => [String])
  tlds: string[];

  @Field()
  matchCountryLanguage: boolean;

  @Field()
  matchTechnologies: string;

  @Field()
  rootPath: boolean;

  @Field(() => Int, { nullable: true })
  subset: number | null;

  @Field(() => Int)
  subsetSlice: number;

  @Field()
  subdomains: string;

  @Field(() => Int)
  minAge: number;

  @Field(() => Int)
  maxAge: number;

  @Field(() => Int, { nullable: true })
  fromDate: number | null;

  @Field(() => [String])
  requiredSets: string[];

  @Field()
  excludeNoTraffic: boolean;

  @Field()
  excludeMultilingual: boolean;

  @Field(() => String, { nullable: true })
  excludeListId: string | null;

  @Field(() => [String])
  sets: string[];

  @Field(() => String, { nullable: true })
  callbackUrl: string | null;

  @Field()
  format: string;

  @Field(() => Int)
  totalCredits: number;

  @Field(() => String, { nullable: true, description: 'Signed link to the full ZIP; null until Complete' })
  url: string | null;

  @Field(() => String, { nullable: true, description: 'Signed link to the sample ZIP; null until Ready' })
  sampleUrl: string | null;

  @Field(() => [ListRowCountType])
  rows: ListRowCountType[];

  @Field(() => [ListSetRowCountType])
  setRows: ListSetRowCountType[];

  @Field(() => Int, { description: 'Distinct websites (a site in two technology files counts once)' })
  websites: number;

  @Field(() => String, { nullable: true })
  baseListId: string | null;

  @Field(() => LeadListSummaryType, { nullable: true })
  baseList: LeadListSummaryType | null;

  @Field(() => String, { nullable: true, description: 'Why the list is Failed' })
  error: string | null;

  @Field(() => [String], {
    nullable: true,
    description: 'Extension: the vulnerability ids the list filters by (null: no such filter)',
  })
  vulnerabilities?: string[];

  @Field(() => Boolean, {
    nullable: true,
    description: 'Extension, with vulnerabilities: whether possibly affected sites (no version) are included',
  })
  possiblyAffected?: boolean;
}

@ObjectType('ListCreated')
export class ListCreatedType {
  @Field()
  id: string;

  @Field()
  status: string;
}

@ObjectType('ListFinalized')
export class ListFinalizedType {
  @Field()
  id: string;

  @Field()
  status: string;

  @Field()
  url: string;
}

@ObjectType('ListReady', { description: 'A list finished calculating (Ready, Insufficient or Failed).' })
export class ListReadyType {
  @Field()
  id: string;

  @Field()
  status: string;

  @Field(() => [ListRowCountType])
  rows: ListRowCountType[];

  @Field(() => [ListSetRowCountType])
  setRows: ListSetRowCountType[];

  @Field(() => Int)
  totalCredits: number;

  @Field(() => String, { nullable: true })
  sampleUrl: string | null;
}
