import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'One credit movement.' })
export class LedgerEntry {
  @Field(() => Int)
  id: number;

  @Field(() => Int, { description: 'Positive for grants and refunds, negative for charges' })
  delta: number;

  @Field(() => Int)
  balanceAfter: number;

  @Field({ description: 'charge, grant or refund' })
  kind: string;

  @Field()
  reason: string;

  @Field(() => String, { nullable: true })
  requestId: string | null;

  @Field(() => Int, { description: 'UNIX seconds' })
  createdAt: number;
}

@ObjectType()
export class LedgerPage {
  @Field(() => [LedgerEntry])
  entries: LedgerEntry[];

  @Field(() => Int, { nullable: true, description: 'Pass as `before` to get older entries' })
  nextBefore: number | null;
}
