import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Monitor } from '../schema/monitor.type';
import { argsTypeOf, inputTypeOf } from '../schema/zod-graphql';
import {
  CreateMonitorRequest,
  MonitorIdRequest,
  type MonitorView,
} from '../services/monitors/monitors.contract';
import { parseRequest } from '../services/platform/request-schema';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';

const CreateMonitorInput = inputTypeOf(
  CreateMonitorRequest,
  'CreateMonitorInput',
  'POST /v2/monitors: callbackUrl and at least one of domains, technologies, categories.',
);
const MonitorIdArgs = argsTypeOf(MonitorIdRequest, 'MonitorIdArgs');

@Resolver()
export class MonitorResolver {
  @Query(() => [Monitor], { description: 'GET /v2/monitors/: the monitors of the account, oldest first' })
  @RateLimited('monitors')
  async monitors(@Ctx() ctx: GraphQLContext): Promise<MonitorView[]> {
    return ctx.services.monitors.list(requireCaller(ctx));
  }

  @Query(() => Monitor, { description: "GET /v2/monitors/{id}: one of the account's monitors" })
  @RateLimited('monitors')
  async monitor(@Ctx() ctx: GraphQLContext, @Args(() => MonitorIdArgs) args: object): Promise<MonitorView> {
    return ctx.services.monitors.get(requireCaller(ctx), parseRequest(MonitorIdRequest, args).id);
  }

  @Mutation(() => Monitor, {
    description:
      'POST /v2/monitors: watches sites, technologies or categories; each batch of matching changes is ' +
      'called back to callbackUrl, and the watched sites are re-analysed at least every recrawlDays ' +
      '(5 credits per successful analysis). Free; within the plan limits on monitors and watched domains.',
  })
  @RateLimited('monitors')
  async createMonitor(
    @Ctx() ctx: GraphQLContext,
    @Arg('input', () => CreateMonitorInput) input: object,
  ): Promise<MonitorView> {
    return ctx.services.monitors.create(requireCaller(ctx), parseRequest(CreateMonitorRequest, input));
  }

  @Mutation(() => Boolean, {
    description: 'DELETE /v2/monitors/{id}: deletes the monitor (callbacks already scheduled are still sent)',
  })
  @RateLimited('monitors')
  async deleteMonitor(@Ctx() ctx: GraphQLContext, @Args(() => MonitorIdArgs) args: object): Promise<boolean> {
    await ctx.services.monitors.delete(requireCaller(ctx), parseRequest(MonitorIdRequest, args).id);
    return true;
  }
}
