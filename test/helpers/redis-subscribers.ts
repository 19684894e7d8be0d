import type { SharedRedis } from '../../src/redis/redis-connection';
import { eventually } from './eventually';

/**
 * Resolves once `count` connections listen to the events under `redis`'s prefix (one per
 * RedisEventTransport). A transport subscribes without telling when Redis has the subscription;
 * PUBLISH answers how many subscriptions received its message, so a probe on a channel that no
 * topic uses counts them (the buses deliver it to nobody).
 */
export function eventSubscribers(redis: SharedRedis, count: number): Promise<number> {
  return eventually(async () => {
    const received = await redis.commands.publish(redis.key('events:~probe'), '0');
    return received >= count && received;
  }, `${count} event subscriber(s) in Redis`);
}
