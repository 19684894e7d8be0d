import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';
import { toCallbackDelivery } from '../schema/callback-delivery.mapper';
import { CallbackDelivery, CallbackDeliveryPage } from '../schema/callback-delivery.type';

@Resolver()
export class CallbackDeliveryResolver {
  @Query(() => CallbackDeliveryPage, { description: "The caller's callback delivery log, newest first" })
  @RateLimited('account')
  async callbackDeliveries(
    @Ctx() ctx: GraphQLContext,
    @Arg('limit', () => Int, { defaultValue: 20 }) limit: number,
    @Arg('before', () => String, { nullable: true }) before: string | null,
  ): Promise<CallbackDeliveryPage> {
    const page = await ctx.services.myAccount.callbackDeliveries(
      requireCaller(ctx),
      limit,
      before ?? undefined,
    );
    return { deliveries: page.deliveries.map(toCallbackDelivery), nextBefore: page.nextBefore };
  }

  @Mutation(() => CallbackDelivery, {
    description: 'Send a callback again now (a failed one gets a fresh retry schedule)',
  })
  @RateLimited('account')
  async redeliverCallback(@Ctx() ctx: GraphQLContext, @Arg('id') id: string): Promise<CallbackDelivery> {
    return toCallbackDelivery(await ctx.services.myAccount.redeliverCallback(requireCaller(ctx), id));
  }
}
