import { randomBytes } from 'node:crypto';
import type { FixedWindow, RateLimitStore } from '../graphql/rate-limit-store';
import type { SharedRedis } from './redis-connection';

/**
 * Sliding window as a sorted set of call times, checked and added in one Lua script so that
 * concurrent calls from every process are counted exactly. Returns -1 when accepted, else the
 * milliseconds until the oldest call leaves the window.
 * KEYS[1] set; ARGV: now, windowMs, max, member.
 */
const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return tonumber(oldest[2]) + window - now
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
return -1
`;

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
  rateLimitTake(key: string, now: number, windowMs: number, max: number, member: string): Promise<unknown>;
  rateLimitAdd(key: string, windowMs: number): Promise<unknown>;
}

/**
 * Rate-limit counts shared by every process of the deployment (REDIS_URL). Every metered request
 * takes from a window, so the scripts are defined once on the connection (ioredis sends EVALSHA
 * and falls back to EVAL after a NOSCRIPT) rather than sent whole with EVAL each time, and a call's
 * member is this process's random tag and a counter rather than new random bytes each time.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly scripts: RateLimitCommands;
  private readonly tag = randomBytes(6).toString('hex');
  private calls = 0;

  constructor(private readonly redis: SharedRedis) {
    const commands = redis.commands as unknown as Partial<RateLimitCommands>;
    if (!commands.rateLimitTake)
      redis.commands.defineCommand('rateLimitTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    if (!commands.rateLimitAdd)
      redis.commands.defineCommand('rateLimitAdd', { numberOfKeys: 1, lua: ADD_SCRIPT });
    this.scripts = redis.commands as unknown as RateLimitCommands;
  }

  async take(key: string, max: number, windowMs: number, now: number): Promise<number | null> {
    const member = `${now}:${this.tag}:${++this.calls}`;
    const result = Number(
      await this.scripts.rateLimitTake(this.redis.key(`rl:s:${key}`), now, windowMs, max, member),
    );
    return result < 0 ? null : Math.max(result, 1);
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
