import { pause } from '../fetch/host-slots';
import { PACING_WINDOW_MS, type HostPacer } from '../fetch/host-pacing';
import type { SharedRedis } from './redis-connection';

/**
 * Reserves the first moment at which a request keeps the host within `rate` requests in any window:
 * now, or the oldest of the last `rate` reservations plus the window. A list per host, oldest
 * first, on Redis's own clock (workers' clocks never disagree); it expires a window after its last
 * reservation. KEYS[1]; ARGV: rate, windowMs and, optionally, a reservation of the caller's to give
 * back first (its sleep ended too late to keep it). Returns {wait ms, the reserved moment}.
 */
const RESERVE_SCRIPT = `
if ARGV[3] then redis.call('LREM', KEYS[1], 1, ARGV[3]) end
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

/**
 * How late a wait may end and still be sent on its reservation. The window is a tenth of a second
 * longer than the second the rate is counted in; half of that margin is this.
 */
export const LATE_WAKE_MS = 50;

/**
 * HOST_REQUESTS_PER_SECOND across every worker (REDIS_URL). A wait that ended later than
 * LATE_WAKE_MS after its reservation (a stalled event loop) gives the reservation back and takes a
 * new one: requests held up by a stall are not all sent at once when it ends.
 */
export class RedisHostPacer implements HostPacer {
  constructor(
    private readonly redis: SharedRedis,
    private readonly requestsPerSecond: number,
    /** The local clock a wait's lateness is measured on (tests stall it). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  async wait(host: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    let [waitMs, at] = await this.reserve(host);
    while (waitMs > 0) {
      const asleep = this.now();
      await pause(waitMs, signal);
      if (this.now() - asleep - waitMs <= LATE_WAKE_MS) return;
      [waitMs, at] = await this.reserve(host, at);
    }
  }

  /**
   * One reservation: how long to wait, and the moment (Redis's clock, ms) it is for; `giveBack`,
   * an earlier reservation of the caller's, is removed first.
   */
  async reserve(host: string, giveBack?: number): Promise<[number, number]> {
    const key = this.redis.key(`host-pace:${host.toLowerCase()}`);
    const [waitMs, at] = (await this.redis.commands.eval(
      RESERVE_SCRIPT,
      1,
      key,
      this.requestsPerSecond,
      PACING_WINDOW_MS,
      ...(giveBack !== undefined ? [giveBack] : []),
    )) as [number, number];
    return [Number(waitMs), Number(at)];
  }
}
