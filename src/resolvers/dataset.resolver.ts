import { Arg, Args, Ctx, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { TOPICS } from '../platform/event-bus';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';
import { DatasetConfirmedType, DatasetOrderType, DatasetQuotedType } from '../schema/dataset.type';
import { argsTypeOf, inputTypeOf } from '../schema/zod-graphql';
import { DatasetQuoteRequest, OrderRefRequest } from '../services/datasets/datasets.contract';
import { parseRequest } from '../services/platform/request-schema';
import type { DatasetOrderChangedEvent, DatasetOrderView } from '../services/datasets/dataset.service';

/** GraphQL's counts are a list of {technology, records} (REST turns them back into an object). */
function toGraphQL(order: DatasetOrderView & { error?: string | null }): DatasetOrderType {
  return {
    ...order,
    records: {
      counts: Object.entries(order.records.counts).map(([technology, records]) => ({ technology, records })),
      subset: order.records.subset,
    },
  };
}

const DatasetQuoteInput = inputTypeOf(
  DatasetQuoteRequest,
  'DatasetQuoteInput',
  'POST /dataset/v1/: technologies and callbackUrl are required.',
);
const OrderRefArgs = argsTypeOf(OrderRefRequest, 'OrderRefArgs');

@Resolver()
export class DatasetResolver {
  @Mutation(() => DatasetQuotedType, {
    description: 'POST /dataset/v1/: asks for a quote; it is POSTed to callbackUrl (status new)',
  })
  @RateLimited('dataset')
  async datasetQuote(
    @Ctx() ctx: GraphQLContext,
    @Arg('input', () => DatasetQuoteInput) input: object,
  ): Promise<DatasetQuotedType> {
    return ctx.services.datasets.quote(requireCaller(ctx), input, ctx.origin);
  }

  @Mutation(() => DatasetConfirmedType, {
    description:
      'POST /dataset/v1/{orderRef}: buys a quoted order (charged once); the file follows by callback',
  })
  @RateLimited('dataset')
  async datasetConfirm(
    @Ctx() ctx: GraphQLContext,
    @Args(() => OrderRefArgs) args: object,
  ): Promise<DatasetConfirmedType> {
    return ctx.services.datasets.confirm(requireCaller(ctx), parseRequest(OrderRefRequest, args).orderRef);
  }

  @Query(() => [DatasetOrderType], { description: 'The dataset orders of the account, newest first' })
  @RateLimited('account')
  async datasetOrders(@Ctx() ctx: GraphQLContext): Promise<DatasetOrderType[]> {
    return (await ctx.services.datasets.orders(requireCaller(ctx), ctx.origin)).map(toGraphQL);
  }

  @Query(() => DatasetOrderType, { description: 'One dataset order' })
  @RateLimited('account')
  async datasetOrder(
    @Ctx() ctx: GraphQLContext,
    @Args(() => OrderRefArgs) args: object,
  ): Promise<DatasetOrderType> {
    const { orderRef } = parseRequest(OrderRefRequest, args);
    return toGraphQL(await ctx.services.datasets.order(requireCaller(ctx), orderRef, ctx.origin));
  }

  @Subscription(() => DatasetOrderType, {
    topics: TOPICS.datasetOrderChanged,
    filter: ({ payload, context }: { payload: DatasetOrderChangedEvent; context: GraphQLContext }) =>
      payload.accountId === context.caller?.principal.accountId,
    description: "Pushes each of the caller's dataset orders when its status changes",
  })
  datasetOrderChanged(@Root() event: DatasetOrderChangedEvent): DatasetOrderType {
    return toGraphQL(event.order);
  }
}
