import type { HttpResult, TestService } from './test-service';

/**
 * Repeats a request while a per-key rate limit refuses it, moving the service's rate-limit clock
 * on by what Retry-After says instead of waiting that long. Tests use it where they need more
 * requests than a tight per-second limit allows and are about something else. Other refusals
 * (quotas, per-address limits: the clock does not move those) are handed back as they come.
 */
export async function untilNotRateLimited<T extends HttpResult>(
  service: Pick<TestService, 'clock'>,
  send: () => Promise<T>,
  attempts = 5,
): Promise<T> {
  for (let i = 1; ; i++) {
    const res = await send();
    const code = res.body?.code ?? res.body?.errors?.[0]?.extensions?.code;
    if (code !== 'RATE_LIMITED' || i >= attempts) return res;
    const seconds = Number(
      res.headers.get('retry-after') ?? res.body?.errors?.[0]?.extensions?.retryAfter ?? 1,
    );
    service.clock.advance(Math.max(1, seconds) * 1000);
  }
}
