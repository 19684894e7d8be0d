import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'One callback: what was sent where, and how its delivery went' })
export class CallbackDelivery {
  @Field({ description: 'Also sent as the service-delivery-id header' })
  id: string;

  @Field()
  url: string;

  @Field({ description: 'Also sent as the service-event header, e.g. crawl-v1.result' })
  event: string;

  @Field({ description: 'The exact JSON body sent (and signed)' })
  body: string;

  @Field({ description: 'pending, delivered or failed' })
  status: string;

  @Field(() => Int)
  attempts: number;

  @Field(() => Int, { nullable: true })
  lastStatusCode: number | null;

  @Field(() => String, { nullable: true })
  lastError: string | null;

  @Field(() => Int, { description: 'UNIX seconds' })
  createdAt: number;

  @Field(() => Int, { nullable: true, description: 'UNIX seconds' })
  deliveredAt: number | null;

  @Field(() => Int, { nullable: true, description: 'UNIX seconds of the next attempt while pending' })
  nextAttemptAt: number | null;
}

@ObjectType()
export class CallbackDeliveryPage {
  @Field(() => [CallbackDelivery])
  deliveries: CallbackDelivery[];

  @Field(() => String, { nullable: true, description: 'Pass as `before` for older deliveries' })
  nextBefore: string | null;
}
