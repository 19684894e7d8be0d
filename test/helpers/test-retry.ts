import type { HttpResult } from './test-service';

/**
 * Repeats a request while it is refused by a rate limit, waiting what Retry-After says. Tests use
 * it where they need many requests through a tight per-second limit without asserting on time.
 */
export async function untilNotRateLimited<T extends HttpResult>(
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
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, seconds) * 1000));
  }
}
