import { pause } from '../fetch/host-slots';
import { PACING_WINDOW_MS, type HostPacer } from '../fetch/host-pacing';
import type { SharedRedis } from './redis-connection';

/**
 * Reserves the first moment at which a request keeps the host within `rate` requests in any window:
 * now, or the oldest of the last `rate` reservations plus the window. A list per host, oldest
 * first, on Redis's own clock (workers' clocks never disagree); it expires a window after its last
 * reservation. KEYS[1]; ARGV: rate, windowMs. Returns {wait ms, the reserved moment}.
 */
const RESERVE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local at = now
if redis.call('LLEN', KEYS[1]) >= rate then
  at = math.max(now, tonumber(redis.call('LINDEX', KEYS[1], 0)) + window)
end
redis.call('RPUSH', KEYS[1], at)
redis.call('LTRIM', KEYS[1], -rate, -1)
redis.call('PEXPIRE', KEYS[1], at - now + window)
return {at - now, at}
`;

/** HOST_REQUESTS_PER_SECOND across every worker (REDIS_URL). */
export class RedisHostPacer implements HostPacer {
  constructor(
    private readonly redis: SharedRedis,
    private readonly requestsPerSecond: number,
  ) {}

  async wait(host: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const [waitMs] = await this.reserve(host);
    if (waitMs > 0) await pause(waitMs, signal);
  }

  /** One reservation: how long to wait, and the moment (Redis's clock, ms) it is for. */
  async reserve(host: string): Promise<[number, number]> {
    const key = this.redis.key(`host-pace:${host.toLowerCase()}`);
    const [waitMs, at] = (await this.redis.commands.eval(
      RESERVE_SCRIPT,
      1,
      key,
      this.requestsPerSecond,
      PACING_WINDOW_MS,
    )) as [number, number];
    return [Number(waitMs), Number(at)];
  }
}
