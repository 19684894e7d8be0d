import type { HostBackoffStore } from '../fetch/host-backoff';
import type { SharedRedis } from './redis-connection';

/** Keeps the later of the recorded and the new time; the key expires with it. KEYS[1]; ARGV: untilMs, now. */
const BACK_OFF_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local untilMs = tonumber(ARGV[1])
if untilMs > current then
  redis.call('SET', KEYS[1], untilMs, 'PX', math.max(1, untilMs - tonumber(ARGV[2])))
end
return 1
`;

/** Host back-offs every worker of the deployment honours (REDIS_URL). */
export class RedisHostBackoff implements HostBackoffStore {
  constructor(
    private readonly redis: SharedRedis,
    private readonly now: () => number = Date.now,
  ) {}

  async blockedUntil(host: string): Promise<number> {
    const until = Number((await this.redis.commands.get(this.keyOf(host))) ?? 0);
    return until > this.now() ? until : 0;
  }

  async backOff(host: string, untilMs: number): Promise<void> {
    await this.redis.commands.eval(BACK_OFF_SCRIPT, 1, this.keyOf(host), untilMs, this.now());
  }

  private keyOf(host: string): string {
    return this.redis.key(`host-backoff:${host.toLowerCase()}`);
  }
}
