import type { EventTransport } from '../events/event-bus';
import { logger } from '../logger';
import type { SharedRedis } from './redis-connection';

/**
 * Events over Redis pub/sub: one channel per topic under the deployment's prefix, payloads as JSON
 * (every event is plain data). Delivery is at most once, as in one process: a subscriber that is
 * not connected when an event is published misses it, like a WebSocket that was not open.
 */
export class RedisEventTransport implements EventTransport {
  private readonly channelPrefix: string;
  /** Publishes not yet acknowledged: close() waits for them (a CLI command exits right after). */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly redis: SharedRedis) {
    this.channelPrefix = redis.key('events:');
  }

  send(topic: string, payload: unknown): void {
    const sent = this.redis.commands
      .publish(this.channelPrefix + topic, JSON.stringify(payload ?? null))
      .catch((error: unknown) => logger.error({ err: error, topic }, 'could not publish an event to Redis'))
      .finally(() => this.pending.delete(sent));
    this.pending.add(sent);
  }

  start(deliver: (topic: string, payload: unknown) => void): void {
    const subscriber = this.redis.subscriber();
    subscriber.on('pmessage', (_pattern: string, channel: string, message: string) => {
      try {
        deliver(channel.slice(this.channelPrefix.length), JSON.parse(message));
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
    await Promise.all([...this.pending]);
  }
}
