import type { Config } from '../platform/config';
import { EventBus } from '../platform/event-bus';
import { SharedRedis } from './redis-connection';
import { RedisEventTransport } from './redis-event-transport';

/** What the processes of one deployment share besides the database. */
export interface SharedState {
  events: EventBus;
  redis: SharedRedis | null;
  close(): Promise<void>;
}

/**
 * With REDIS_URL: an event bus over Redis pub/sub and the Redis that holds rate limits and job
 * wake-ups. Without it: the in-process bus, and every count in this process's memory.
 */
export function connectSharedState(config: Config): SharedState {
  if (!config.REDIS_URL) {
    const events = new EventBus();
    return { events, redis: null, close: () => events.close() };
  }
  const redis = new SharedRedis(config.REDIS_URL, config.REDIS_KEY_PREFIX);
  const events = new EventBus(new RedisEventTransport(redis));
  return {
    events,
    redis,
    async close() {
      await events.close();
      await redis.close();
    },
  };
}
