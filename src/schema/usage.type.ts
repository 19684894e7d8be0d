import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { FAMILIES } from '../plans/plan-catalog';

/** GraphQL enum values cannot contain dashes: crawl-v1 becomes CRAWL_V1. */
export const FamilyEnum = Object.fromEntries(
  FAMILIES.map((f) => [f.toUpperCase().replace(/-/g, '_'), f]),
) as Record<string, string>;
registerEnumType(FamilyEnum, {
  name: 'EndpointFamily',
  description: 'A rate-limit bucket: one per endpoint family',
});

@ObjectType()
export class UsageThrottle {
  @Field(() => Int, { description: 'Requests per second allowed for this family' })
  rateLimit: number;
}

@ObjectType()
export class UsageQuota {
  @Field(() => Int)
  limit: number;

  @Field({ description: 'DAY or MONTH' })
  period: string;
}

@ObjectType()
export class UsageApi {
  @Field(() => UsageThrottle)
  throttle: UsageThrottle;

  @Field(() => UsageQuota)
  quota: UsageQuota;
}

@ObjectType()
export class UsagePlanQuota {
  @Field(() => Int, { description: 'Requests left in the current period (an estimate)' })
  remaining: number;
}

@ObjectType()
export class UsagePlan {
  @Field()
  name: string;

  @Field(() => UsagePlanQuota)
  quota: UsagePlanQuota;
}

@ObjectType({ description: 'Quota and limits of the plan (GET <resource path>/usage).' })
export class Usage {
  @Field(() => UsageApi)
  api: UsageApi;

  @Field(() => UsagePlan)
  plan: UsagePlan;
}
