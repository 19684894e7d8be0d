import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'An API key of the account (the key itself is never shown again).' })
export class ApiKeyInfo {
  @Field(() => Int)
  id: number;

  @Field({ description: 'First characters of the key, to tell keys apart' })
  prefix: string;

  @Field(() => Int, { description: 'UNIX seconds' })
  createdAt: number;

  @Field(() => Int, { nullable: true, description: 'UNIX seconds; null while the key is active' })
  revokedAt: number | null;
}

@ObjectType({ description: "The caller's account." })
export class Account {
  @Field(() => Int)
  id: number;

  @Field()
  name: string;

  @Field()
  email: string;

  @Field({ description: 'demo, small, medium, large or business' })
  plan: string;

  @Field(() => Int)
  credits: number;

  @Field({ description: 'Whether callbacks are signed (service-signature and Standard Webhooks headers)' })
  hasSigningSecret: boolean;

  @Field(() => Int, { description: 'UNIX seconds' })
  createdAt: number;

  @Field(() => [ApiKeyInfo])
  keys: ApiKeyInfo[];
}
