import { Arg, Args, Ctx, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { TOPICS } from '../platform/event-bus';
import {
  LeadListSummaryType,
  LeadListType,
  ListCreatedType,
  ListFinalizedType,
  ListReadyType,
} from '../schema/lead-list.type';
import { argsTypeOf, inputTypeOf } from '../schema/zod-graphql';
import { FinalizeListRequest, ListCreateRequest, ListIdRequest } from '../services/lists/lists.contract';
import { parseRequest } from '../services/platform/request-schema';
import type { ListReadyEvent } from '../services/lists/lead-list.service';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';

const ListCreateInput = inputTypeOf(
  ListCreateRequest,
  'ListCreateInput',
  'POST /v2/lists: every field optional except a technology or category.',
);
const ListIdArgs = argsTypeOf(ListIdRequest, 'ListIdArgs');
const FinalizeListArgs = argsTypeOf(FinalizeListRequest, 'FinalizeListArgs');

@Resolver()
export class LeadListResolver {
  @Query(() => [LeadListSummaryType], {
    description: 'GET /v2/lists/: the lists of the account (Business plan)',
  })
  @RateLimited('lists')
  async lists(@Ctx() ctx: GraphQLContext): Promise<LeadListSummaryType[]> {
    return ctx.services.lists.all(requireCaller(ctx));
  }

  @Query(() => LeadListType, { description: 'GET /v2/lists/{id}: one list, full form' })
  @RateLimited('lists')
  async list(@Ctx() ctx: GraphQLContext, @Args(() => ListIdArgs) args: object): Promise<LeadListType> {
    return ctx.services.lists.get(requireCaller(ctx), parseRequest(ListIdRequest, args).id, ctx.origin);
  }

  @Mutation(() => ListCreatedType, {
    description:
      'POST /v2/lists: starts calculating a list (Calculating → Ready, Insufficient or Failed). ' +
      'Free; 25 per day and 3 Calculating at once per account (LISTS_DAILY_LIMIT, LISTS_CONCURRENT_LIMIT)',
  })
  @RateLimited('lists-create')
  async createList(
    @Ctx() ctx: GraphQLContext,
    @Arg('input', () => ListCreateInput) input: object,
  ): Promise<ListCreatedType> {
    return ctx.services.lists.create(requireCaller(ctx), input, ctx.origin);
  }

  @Mutation(() => ListFinalizedType, {
    description:
      'POST /v2/lists/{id}: buys a Ready list; spendCredits must equal its totalCredits (1 credit per website)',
  })
  @RateLimited('lists-finalize')
  async finalizeList(
    @Ctx() ctx: GraphQLContext,
    @Args(() => FinalizeListArgs) args: object,
  ): Promise<ListFinalizedType> {
    const { id, spendCredits } = parseRequest(FinalizeListRequest, args);
    return ctx.services.lists.finalize(requireCaller(ctx), id, spendCredits, ctx.origin);
  }

  @Mutation(() => Boolean, { description: 'DELETE /v2/lists/{id}: deletes the list and its files' })
  @RateLimited('lists')
  async deleteList(@Ctx() ctx: GraphQLContext, @Args(() => ListIdArgs) args: object): Promise<boolean> {
    await ctx.services.lists.delete(requireCaller(ctx), parseRequest(ListIdRequest, args).id);
    return true;
  }

  @Subscription(() => ListReadyType, {
    topics: TOPICS.listReady,
    filter: ({ payload, context }: { payload: ListReadyEvent; context: GraphQLContext }) =>
      payload.accountId === context.caller?.principal.accountId,
    description:
      "Pushes each of the caller's lists when its calculation ends (Ready, Insufficient or Failed)",
  })
  listReady(@Root() event: ListReadyEvent): ListReadyType {
    const { accountId: _account, ...rest } = event;
    return rest;
  }
}
