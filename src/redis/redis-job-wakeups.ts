import type { JobQueue } from '../jobs';
import { logger } from '../platform/logger';
import type { SharedRedis } from './redis-connection';

const CHANNEL = 'jobs:enqueued';

/**
 * Job wake-ups across processes: every committed enqueue in this process is announced on Redis,
 * so workers in other processes claim at once instead of at their next poll (JOB_POLL_INTERVAL_MS,
 * which stays as the fallback when a message is missed). Returns the stop function.
 */
export function announceEnqueues(queue: JobQueue, redis: SharedRedis): () => void {
  return queue.onEnqueued(() => {
    redis.commands
      .publish(redis.key(CHANNEL), '1')
      .catch((error: unknown) => logger.warn({ err: error }, 'could not announce a job on Redis'));
  });
}

/** Calls `wake` whenever any process announces an enqueue. Returns the stop function. */
export function listenForEnqueues(redis: SharedRedis, wake: () => void): () => void {
  const subscriber = redis.subscriber();
  subscriber.on('message', () => wake());
  void subscriber.subscribe(redis.key(CHANNEL)).catch((error: unknown) => {
    logger.warn({ err: error }, 'could not listen for job wake-ups on Redis; polling only');
  });
  return () => void subscriber.unsubscribe().catch(() => undefined);
}
