import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A host name seen under a requested domain.' })
export class Subdomain {
  @Field({ description: 'Lowercase host name: the domain itself or a name ending in .domain' })
  name: string;

  @Field(() => Int, { description: 'UNIX seconds when the service first saw the name' })
  createdAt: number;

  @Field(() => Int, { description: 'UNIX seconds when the service last saw the name' })
  updatedAt: number;
}

@ObjectType({
  description:
    'One page of subdomains of one requested domain, in name order (byte order). Pass moreAfter back as ' +
    '`after` to continue exactly where this page ended: names added meanwhile never cause repeats or gaps.',
})
export class SubdomainResult {
  @Field({ description: 'The requested domain, normalised to its registrable domain' })
  domain: string;

  @Field(() => [Subdomain])
  subdomains: Subdomain[];

  @Field(() => String, {
    nullable: true,
    description: 'Cursor of the next page; null when this page is the last',
  })
  moreAfter: string | null;
}
