import { randomBytes } from 'node:crypto';
import { EventBus } from '../../../src/platform/event-bus';
import { SharedRedis } from '../../../src/redis/redis-connection';
import { RedisEventTransport } from '../../../src/redis/redis-event-transport';
import { eventually } from '../../helpers/eventually';
import { eventSubscribers } from '../../helpers/redis-subscribers';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Takes the next `n` events of a subscription. */
async function next(events: AsyncIterable<unknown>, n: number): Promise<unknown[]> {
  const iterator = events[Symbol.asyncIterator]();
  const seen: unknown[] = [];
  while (seen.length < n) seen.push((await iterator.next()).value);
  return seen;
}

/**
 * Events between two processes over Redis (two connections here): the events of one turn of the
 * event loop travel as one message and arrive in the order published, each to its topic's
 * listeners, in the other process and in the one that published them.
 */
describe('events over Redis', () => {
  let prefix: string;
  let a: SharedRedis;
  let b: SharedRedis;
  let watcher: SharedRedis;
  let busA: EventBus;
  let busB: EventBus;

  beforeEach(async () => {
    prefix = `test-ev-${randomBytes(6).toString('hex')}:`;
    a = new SharedRedis(REDIS_URL, prefix);
    b = new SharedRedis(REDIS_URL, prefix);
    watcher = new SharedRedis(REDIS_URL, prefix);
    busA = new EventBus(new RedisEventTransport(a));
    busB = new EventBus(new RedisEventTransport(b));
    await eventSubscribers(a, 2);
  });
  afterEach(async () => {
    await busA.close();
    await busB.close();
    for (const redis of [a, b, watcher]) await redis.close();
  });

  it('sends the events of one turn as one message, delivered in order to each topic', async () => {
    const messages: string[] = [];
    const raw = watcher.subscriber();
    raw.on('pmessage', (_pattern: string, channel: string) => messages.push(channel.slice(prefix.length)));
    await raw.psubscribe(`${prefix}events:*`);
    const credits = busB.subscribe('creditsChanged');
    const revoked = busB.subscribe('apiKeyRevoked');
    const own = busA.subscribe('creditsChanged');
    const gotCredits = next(credits, 3);
    const gotRevoked = next(revoked, 1);
    const gotOwn = next(own, 3);
    busA.publish('creditsChanged', { n: 1 });
    busA.publish('apiKeyRevoked', { keyId: 7 });
    busA.publish('creditsChanged', { n: 2 });
    busA.publish('creditsChanged', { n: 3 });
    expect(await gotCredits).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await gotRevoked).toEqual([{ keyId: 7 }]);
    expect(await gotOwn).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    // A lone event later goes on its own topic's channel.
    const later = next(credits, 1);
    busA.publish('creditsChanged', { n: 4 });
    expect(await later).toEqual([{ n: 4 }]);
    // Redis hands one publisher's messages to a subscriber in order: with the last one here,
    // every message before it is too.
    await eventually(() => messages.includes('events:creditsChanged'), 'the lone event on its channel');
    expect(messages).toEqual(['events:~batch', 'events:creditsChanged']);
  });

  it('publishes what is buffered before it closes', async () => {
    const got = next(busB.subscribe('creditsChanged'), 2);
    busA.publish('creditsChanged', { n: 1 });
    busA.publish('creditsChanged', { n: 2 });
    await busA.close();
    expect(await got).toEqual([{ n: 1 }, { n: 2 }]);
  });
});
