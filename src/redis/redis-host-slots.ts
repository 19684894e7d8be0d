import { randomUUID } from 'node:crypto';
import { HostSlots, pause } from '../fetch/host-slots';
import type { SharedRedis } from './redis-connection';

/**
 * Takes a slot when fewer than the limit are held: a sorted set per host, each member a holder's
 * token scored by its lease's expiry (Redis's own clock, so workers' clocks never disagree).
 * Expired leases are dropped first. KEYS[1]; ARGV: token, limit, leaseMs. 1 when taken.
 */
const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
  return 1
end
return 0
`;

/** Waits between attempts on a full host, doubled up to the cap (with jitter, so waiters spread). */
const RETRY_FIRST_MS = 10;
const RETRY_MAX_MS = 200;

/**
 * Per-host slots shared by every worker (REDIS_URL, HOST_CONCURRENCY). A slot is a lease: a worker
 * that dies holding one (even SIGKILL) loses it when the lease expires (`leaseMs`, longer than one
 * request's budget), so no host is blocked for good.
 */
export class RedisHostSlots implements HostSlots {
  constructor(
    private readonly redis: SharedRedis,
    private readonly limit: number,
    private readonly leaseMs: number,
  ) {}

  async acquire(host: string, signal?: AbortSignal): Promise<() => Promise<void>> {
    const key = this.redis.key(`host-slots:${host.toLowerCase()}`);
    const token = randomUUID();
    for (let wait = RETRY_FIRST_MS; ; wait = Math.min(RETRY_MAX_MS, wait * 2)) {
      signal?.throwIfAborted();
      const taken = await this.redis.commands.eval(ACQUIRE_SCRIPT, 1, key, token, this.limit, this.leaseMs);
      if (taken === 1) break;
      await pause(wait / 2 + Math.random() * wait, signal);
    }
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await this.redis.commands.zrem(key, token).catch(() => undefined); // the lease expires anyway
    };
  }
}
