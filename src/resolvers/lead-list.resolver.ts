import { Arg, Ctx, Int, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { TOPICS } from '../platform/event-bus';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';
import {
  LeadListSummaryType,
  LeadListType,
  ListCreatedType,
  ListCreateInputType,
  ListFinalizedType,
  ListReadyType,
} from '../schema/lead-list.type';
import type { ListReadyEvent } from '../services/lists/lead-list.service';

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
  async list(@Ctx() ctx: GraphQLContext, @Arg('id') id: string): Promise<LeadListType> {
    return ctx.services.lists.get(requireCaller(ctx), id);
  }

  @Mutation(() => ListCreatedType, {
    description:
      'POST /v2/lists: starts calculating a list (Calculating → Ready, Insufficient or Failed). ' +
      'Free; 25 per day and 3 Calculating at once per account (LISTS_DAILY_LIMIT, LISTS_CONCURRENT_LIMIT)',
  })
  @RateLimited('lists-create')
  async createList(
    @Ctx() ctx: GraphQLContext,
    @Arg('input', () => ListCreateInputType) input: ListCreateInputType,
  ): Promise<ListCreatedType> {
    return ctx.services.lists.create(requireCaller(ctx), input);
  }

  @Mutation(() => ListFinalizedType, {
    description:
      'POST /v2/lists/{id}: buys a Ready list; spendCredits must equal its totalCredits (1 credit per website)',
  })
  @RateLimited('lists-finalize')
  async finalizeList(
    @Ctx() ctx: GraphQLContext,
    @Arg('id') id: string,
    @Arg('spendCredits', () => Int) spendCredits: number,
  ): Promise<ListFinalizedType> {
    return ctx.services.lists.finalize(requireCaller(ctx), id, spendCredits);
  }

  @Mutation(() => Boolean, { description: 'DELETE /v2/lists/{id}: deletes the list and its files' })
  @RateLimited('lists')
  async deleteList(@Ctx() ctx: GraphQLContext, @Arg('id') id: string): Promise<boolean> {
    await ctx.services.lists.delete(requireCaller(ctx), id);
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
