import { randomBytes } from 'node:crypto';
import { PerTickBatch } from '../platform/per-tick-batch';
import type { FixedWindow, RateLimitStore } from '../platform/rate-limit-store';
import type Redis from 'ioredis';
import type { SharedRedis } from './redis-connection';

/**
 * Sliding windows as sorted sets of call times, each checked and added to in one Lua script so
 * that concurrent calls from every process are counted exactly; several calls (of the same or
 * other keys) in one script, in the order given. For each: -1 when accepted, else the milliseconds
 * until the oldest call leaves the window.
 * KEYS: one set per call; ARGV: per call now, windowMs, max, member.
 */
const TAKE_SCRIPT = `
local results = {}
for i, key in ipairs(KEYS) do
  local at = (i - 1) * 4
  local now = tonumber(ARGV[at + 1])
  local window = tonumber(ARGV[at + 2])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  if redis.call('ZCARD', key) >= tonumber(ARGV[at + 3]) then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    results[i] = tonumber(oldest[2]) + window - now
  else
    redis.call('ZADD', key, now, ARGV[at + 4])
    redis.call('PEXPIRE', key, window)
    results[i] = -1
  end
end
return results
`;

/** Calls sent in one script at most (a turn of the event loop rarely has more). */
const MAX_BATCH = 256;

interface PendingTake {
  key: string;
  args: [number, number, number, string];
  resolve: (waitMs: number | null) => void;
  reject: (error: unknown) => void;
}

/**
 * Fixed window: INCR, and the expiry set by the first event of the window; returns the count and
 * the milliseconds left. KEYS[1]; ARGV: windowMs.
 */
const ADD_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1])) end
return {count, redis.call('PTTL', KEYS[1])}
`;

/** The scripts as commands of the connection: sent by SHA-1 (EVALSHA), the text only when the server lacks it. */
interface RateLimitCommands {
  /** numberOfKeys, the keys, then each call's four arguments. */
  rateLimitTake(...args: (string | number)[]): Promise<unknown>;
  rateLimitAdd(key: string, windowMs: number): Promise<unknown>;
}

/**
 * Rate-limit counts shared by every process of the deployment (REDIS_URL). Every metered request
 * takes from a window, so the scripts are commands of the connection (ioredis sends EVALSHA
 * and falls back to EVAL after a NOSCRIPT) rather than sent whole with EVAL each time, and a call's
 * member is this process's random tag and a counter rather than new random bytes each time.
 */
/**
 * Defines the scripts as commands of a connection. Called when the connection is made, before any
 * command: ioredis's auto-pipelining copies a connection's commands into each pipeline it opens,
 * so a command defined later is missing from a pipeline already open (one waiting for the running
 * one's replies) and a call queued into it fails ("pipeline[functionName] is not a function").
 */
export function defineRateLimitCommands(connection: Redis): void {
  connection.defineCommand('rateLimitTake', { lua: TAKE_SCRIPT });
  connection.defineCommand('rateLimitAdd', { numberOfKeys: 1, lua: ADD_SCRIPT });
}

export class RedisRateLimitStore implements RateLimitStore {
  private readonly scripts: RateLimitCommands;
  private readonly tag = randomBytes(6).toString('hex');
  private calls = 0;
  /** Calls of this turn of the event loop, not yet sent. */
  private readonly pending = new PerTickBatch<PendingTake>((batch) => this.send(batch), {
    maxItems: MAX_BATCH,
  });

  constructor(private readonly redis: SharedRedis) {
    // SharedRedis defined them on its connection (defineRateLimitCommands).
    this.scripts = redis.commands as unknown as RateLimitCommands;
  }

  /**
   * The calls of one turn of the event loop go to Redis as one script, which spares Redis's own
   * time per call (docs/performance.md).
   */
  take(key: string, max: number, windowMs: number, now: number): Promise<number | null> {
    return new Promise((resolve, reject) => {
      const member = `${now}:${this.tag}:${++this.calls}`;
      this.pending.add({
        key: this.redis.key(`rl:s:${key}`),
        args: [now, windowMs, max, member],
        resolve,
        reject,
      });
    });
  }

  private send(batch: PendingTake[]): Promise<void> {
    const args: (string | number)[] = [batch.length];
    for (const call of batch) args.push(call.key);
    for (const call of batch) args.push(...call.args);
    return this.scripts.rateLimitTake(...args).then(
      (results) =>
        batch.forEach((call, i) => {
          const waitMs = Number((results as unknown[])[i]);
          call.resolve(waitMs < 0 ? null : Math.max(waitMs, 1));
        }),
      (error: unknown) => batch.forEach((call) => call.reject(error)),
    );
  }

  async peek(key: string): Promise<FixedWindow> {
    const name = this.redis.key(`rl:f:${key}`);
    const [count, ttl] = await Promise.all([this.redis.commands.get(name), this.redis.commands.pttl(name)]);
    if (count === null || ttl <= 0) return { count: 0, resetInMs: 0 };
    return { count: Number(count), resetInMs: ttl };
  }

  async add(key: string, windowMs: number): Promise<FixedWindow> {
    const [count, ttl] = (await this.scripts.rateLimitAdd(this.redis.key(`rl:f:${key}`), windowMs)) as [
      number,
      number,
    ];
    return { count: Number(count), resetInMs: Math.max(0, Number(ttl)) };
  }
}
