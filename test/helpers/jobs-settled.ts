import { eventually } from './eventually';
import type { TestService } from './test-service';

/**
 * Resolves once no job of the service is queued or running. Callbacks and emails are jobs, so
 * whatever a request made the service send has been sent by then: a test that checks that
 * something was not sent waits for this first.
 */
export async function jobsSettled(service: TestService, timeoutMs = 30_000): Promise<void> {
  const { db } = service.running.services;
  await eventually(
    async () => {
      const [{ n }] = await db.query<{ n: number | string }[]>(
        "SELECT COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'running')",
      );
      if (Number(n) > 0) throw new Error(`${n} job(s) still queued or running`);
      return true;
    },
    { describe: 'every job of the service to settle', timeoutMs, intervalMs: 50 },
  );
}
