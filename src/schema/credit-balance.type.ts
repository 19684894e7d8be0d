import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'The credit balance (GET /v2/credits/balance/).' })
export class CreditBalance {
  @Field(() => Int)
  credits: number;
}

@ObjectType({ description: 'A change of the credit balance, pushed to subscribers.' })
export class CreditsChanged {
  @Field(() => Int)
  credits: number;

  @Field(() => Int, { description: 'Positive for grants and refunds, negative for charges' })
  delta: number;

  @Field()
  reason: string;
}
