import { Arg, Ctx, Int, Query, Resolver, Root, Subscription } from 'type-graphql';
import { TOPICS } from '../platform/event-bus';
import { toChangeConnection, toTechnologyChange } from '../schema/change.mapper';
import { TechnologyChange, TechnologyChangeConnection } from '../schema/change.type';
import { inputTypeOf } from '../schema/zod-graphql';
import { CHANGE_KINDS, ChangeFilterSchema, ChangesRequest } from '../services/changes/changes.contract';
import type { ResolvedChangeFilter } from '../services/changes/change-feed.service';
import { parseRequest } from '../services/platform/request-schema';
import type { RecordedChange } from '../services/site-index/timeline-writer';
import type { Services } from '../services/services';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';

export const ChangeFilter = inputTypeOf(
  ChangeFilterSchema,
  'ChangeFilter',
  'Which changes: every field given narrows them (technologies and categories: either matches)',
);

/** The feed's arguments as its one request schema reads them (GraphQL's `first` is REST's `limit`). */
export function changesInput(
  filter: object | null | undefined,
  first?: number | null,
  after?: string | null,
) {
  return parseRequest(ChangesRequest, { ...(filter ?? {}), first, after });
}

/**
 * The change events of this process's bus that pass a filter, for one subscription. Not an async
 * generator: closing one waits for its pending `next`, which would keep the listener until the
 * next event; here closing goes straight to the bus's iterator.
 */
function matching(
  services: Services,
  keep: (change: RecordedChange) => boolean,
): AsyncIterableIterator<RecordedChange> {
  const events = services.events.subscribe(TOPICS.technologyChanged)[Symbol.asyncIterator]();
  const iterator: AsyncIterableIterator<RecordedChange> = {
    async next() {
      for (;;) {
        const result = await events.next();
        if (result.done) return { value: undefined, done: true };
        const change = result.value as RecordedChange;
        if (keep(change)) return { value: change, done: false };
      }
    },
    return: async () => {
      await events.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

@Resolver()
export class ChangeResolver {
  @Query(() => TechnologyChangeConnection, {
    description:
      'GET /v2/changes/: the change log of the index (technologies added, removed, or changing version), ' +
      'oldest first. 1 credit per 10 changes returned, rounded up (an empty page is free).',
  })
  @RateLimited('changes')
  async changes(
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => ChangeFilter, { nullable: true }) filter?: object | null,
    @Arg('first', () => Int, { nullable: true, description: 'Changes per page, 1 to 1000 (default 100)' })
    first?: number | null,
    @Arg('after', () => String, {
      nullable: true,
      description: 'An endCursor (or change id) to continue after',
    })
    after?: string | null,
  ): Promise<TechnologyChangeConnection> {
    const page = await ctx.services.changes.feed(requireCaller(ctx), changesInput(filter, first, after));
    return toChangeConnection(page);
  }

  @Subscription(() => TechnologyChange, {
    description:
      'Pushes every change the index records from now on that passes the filter, from every process ' +
      '(Redis when REDIS_URL is set). Not charged; the feed (changes) reads what was missed.',
    subscribe: async ({
      args,
      context,
    }: {
      args: { filter?: object | null; monitorId?: number | null };
      context: GraphQLContext;
    }) => {
      const { changes, monitors } = context.services;
      const parsed = parseRequest(ChangeFilterSchema, args.filter ?? {});
      const byMonitor = args.monitorId !== null && args.monitorId !== undefined;
      // With a monitor and no kinds of its own, the filter leaves the kinds to the monitor (whose
      // kinds may name vulnerability).
      const filter = changes.resolve(
        byMonitor && !parsed.kinds?.length ? { ...parsed, kinds: [...CHANGE_KINDS] } : parsed,
      );
      // A monitor of the caller's (another account's is not found); null: it matches nothing now.
      let monitor: ResolvedChangeFilter | null | undefined;
      if (args.monitorId !== null && args.monitorId !== undefined)
        monitor = await monitors.filterOf(requireCaller(context), args.monitorId);
      return matching(
        context.services,
        (change) =>
          changes.matches(filter, change) &&
          (monitor === undefined || (monitor !== null && changes.matches(monitor, change))),
      );
    },
  })
  technologyChanged(
    @Root() change: RecordedChange,
    @Arg('filter', () => ChangeFilter, { nullable: true }) _filter?: object | null,
    @Arg('monitorId', () => Int, {
      nullable: true,
      description: "Only the changes that match this monitor of the caller's (and the filter)",
    })
    _monitorId?: number | null,
  ): TechnologyChange {
    return toTechnologyChange({ ...change, hostname: change.hostname });
  }
}
