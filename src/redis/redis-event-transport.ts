import type { EventTransport } from '../platform/event-bus';
import { logger } from '../platform/logger';
import { PerTickBatch } from '../platform/per-tick-batch';
import type { SharedRedis } from './redis-connection';

/** The channel (under the events prefix) of several events published together; no topic is named so. */
const BATCH = '~batch';

/**
 * Events over Redis pub/sub: one channel per topic under the deployment's prefix, payloads as JSON
 * (every event is plain data). Delivery is at most once, as in one process: a subscriber that is
 * not connected when an event is published misses it, like a WebSocket that was not open.
 *
 * The events of one turn of the event loop go as one message: a lone event on its topic's channel,
 * several as one JSON array of [topic, payload] on the `~batch` channel, in the order published,
 * because the usage meter announces every charge of a batch at once and one PUBLISH each would be
 * received back and parsed by every process.
 */
export class RedisEventTransport implements EventTransport {
  private readonly channelPrefix: string;
  /** Publishes not yet acknowledged: close() waits for them (a CLI command exits right after). */
  private readonly pending = new Set<Promise<unknown>>();
  /** Events of this turn of the event loop, not yet published. */
  private readonly batch = new PerTickBatch<[string, unknown]>((events) => this.publish(events));

  constructor(private readonly redis: SharedRedis) {
    this.channelPrefix = redis.key('events:');
  }

  send(topic: string, payload: unknown): void {
    this.batch.add([topic, payload ?? null]);
  }

  private publish(events: [string, unknown][]): Promise<unknown> {
    const [channel, message] =
      events.length === 1
        ? [this.channelPrefix + events[0][0], JSON.stringify(events[0][1])]
        : [this.channelPrefix + BATCH, JSON.stringify(events)];
    const sent = this.redis.commands
      .publish(channel, message)
      .catch((error: unknown) =>
        logger.error(
          { err: error, topics: [...new Set(events.map(([topic]) => topic))] },
          'could not publish events to Redis',
        ),
      )
      .finally(() => this.pending.delete(sent));
    this.pending.add(sent);
    return sent;
  }

  start(deliver: (topic: string, payload: unknown) => void): void {
    const subscriber = this.redis.subscriber();
    subscriber.on('pmessage', (_pattern: string, channel: string, message: string) => {
      try {
        const topic = channel.slice(this.channelPrefix.length);
        if (topic !== BATCH) deliver(topic, JSON.parse(message));
        else for (const [each, payload] of JSON.parse(message) as [string, unknown][]) deliver(each, payload);
      } catch (error) {
        logger.warn({ err: error, channel }, 'dropped an unreadable event from Redis');
      }
    });
    void subscriber.psubscribe(`${this.channelPrefix}*`).catch((error: unknown) => {
      logger.error({ err: error }, 'could not subscribe to events in Redis');
    });
  }

  async close(): Promise<void> {
    // The connections belong to SharedRedis, which closes them after this.
    this.batch.flush();
    await Promise.all([...this.pending]);
  }
}
