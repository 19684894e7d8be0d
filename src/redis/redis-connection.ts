import Redis from 'ioredis';
import { logger } from '../platform/logger';
import { defineRateLimitCommands } from './redis-rate-limit-store';

/**
 * The Redis of a multi-process deployment (REDIS_URL): rate-limit windows, events and job wake-ups
 * of every process meet there. Durable state (jobs, credits, the index) stays in the database.
 * Every key and channel starts with `prefix`, so several deployments (or test runs) share a server.
 */
export class SharedRedis {
  /** Commands (rate limits, publishes). */
  readonly commands: Redis;
  private readonly subscribers: Redis[] = [];

  constructor(
    private readonly url: string,
    readonly prefix: string,
  ) {
    this.commands = this.connect('commands');
    defineRateLimitCommands(this.commands);
  }

  /** A separate connection in subscriber mode (Redis allows only SUBSCRIBE commands on it). */
  subscriber(): Redis {
    const connection = this.connect('subscriber');
    this.subscribers.push(connection);
    return connection;
  }

  key(name: string): string {
    return `${this.prefix}${name}`;
  }

  async close(): Promise<void> {
    await Promise.all([this.commands, ...this.subscribers].map((c) => c.quit().catch(() => c.disconnect())));
  }

  private connect(role: string): Redis {
    // A few retries per command, then an error: a Redis outage fails requests (503) instead of
    // holding them until the client's timeout.
    const connection = new Redis(this.url, { maxRetriesPerRequest: 2, enableAutoPipelining: true });
    connection.on('error', (error: Error) => logger.warn({ err: error, role }, 'Redis connection error'));
    return connection;
  }
}
