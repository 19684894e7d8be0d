import { Arg, Ctx, Int, Query, Resolver, Root, Subscription } from 'type-graphql';
import { TOPICS, CreditsChangedEvent } from '../platform/event-bus';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';
import { Family } from '../plans/plan-catalog';
import { Account } from '../schema/account.type';
import { toAccount, toLedgerEntry } from '../schema/account.mapper';
import { CreditBalance, CreditsChanged } from '../schema/credit-balance.type';
import { LedgerPage } from '../schema/ledger.type';
import { FamilyEnum, Usage } from '../schema/usage.type';

@Resolver()
export class AccountResolver {
  @Query(() => Account, { description: "The caller's account, plan and keys" })
  @RateLimited('account')
  async account(@Ctx() ctx: GraphQLContext): Promise<Account> {
    return toAccount(await ctx.services.myAccount.account(requireCaller(ctx)));
  }

  @Query(() => CreditBalance, { description: 'GET /v2/credits/balance/' })
  @RateLimited('credits')
  async creditBalance(@Ctx() ctx: GraphQLContext): Promise<CreditBalance> {
    return { credits: await ctx.services.myAccount.balance(requireCaller(ctx)) };
  }

  @Query(() => Usage, { description: 'GET <resource path>/usage: quota and limits; counts toward the quota' })
  @RateLimited('usage')
  async usage(
    @Ctx() ctx: GraphQLContext,
    @Arg('family', () => FamilyEnum, { description: 'The endpoint family whose rate limit to report' })
    family: Family,
  ): Promise<Usage> {
    return ctx.services.myAccount.usage(requireCaller(ctx), family);
  }

  @Query(() => LedgerPage, { description: 'Credit movements, newest first' })
  @RateLimited('account')
  async ledger(
    @Ctx() ctx: GraphQLContext,
    @Arg('limit', () => Int, { defaultValue: 50 }) limit: number,
    @Arg('before', () => Int, { nullable: true }) before?: number,
  ): Promise<LedgerPage> {
    const page = await ctx.services.myAccount.ledger(requireCaller(ctx), limit, before ?? undefined);
    return { entries: page.entries.map(toLedgerEntry), nextBefore: page.nextBefore };
  }

  @Subscription(() => CreditsChanged, {
    topics: TOPICS.creditsChanged,
    filter: ({ payload, context }: { payload: CreditsChangedEvent; context: GraphQLContext }) =>
      payload.accountId === context.caller?.principal.accountId,
    description: "Pushes every change of the caller's credit balance",
  })
  creditsChanged(@Root() event: CreditsChangedEvent): CreditsChanged {
    return { credits: event.credits, delta: event.delta, reason: event.reason };
  }
}
