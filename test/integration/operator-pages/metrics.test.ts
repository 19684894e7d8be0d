import { AnalysisKit, q, startAnalysisKit } from '../analysis-api/analysis-test-kit';
import { startTestService } from '../../helpers/test-service';

const TOKEN = 'metrics-token-for-tests-0123456789';

/** One sample of the Prometheus text: the value of `name{labels}` (labels in any order), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return 0;
}

describe('GET /metrics', () => {
  let kit: AnalysisKit;

  beforeAll(async () => {
    kit = await startAnalysisKit({ METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await kit?.close();
  });

  const scrape = async (): Promise<string> => {
    const res = await kit.service.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text;
  };

  it('refuses a missing or wrong bearer token with 401 and a challenge, and shows no figure', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token' },
      { authorization: TOKEN },
    ];
    for (const headers of attempts) {
      const res = await kit.service.request('/metrics', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(res.body).toEqual(expect.objectContaining({ code: 'UNAUTHENTICATED' }));
      expect(res.text).not.toContain('techintel_');
    }
  });

  it('moves the request, credit, detection, job and callback figures with traffic, and leaks no key, URL or account', async () => {
    const { accountId, apiKey } = await kit.service.createAccount({ plan: 'small', credits: 50 });
    const receiver = await kit.receiverFor(accountId);
    const before = await scrape();

    for (let i = 0; i < 3; i++) expect((await kit.service.request('/healthz')).status).toBe(200);
    const page = kit.sites.url('/');
    const analyzed = await kit.get(`/analyze/v1/?${q({ url: page })}`, apiKey);
    expect(analyzed.status).toBe(200);
    const crawl = await kit.getPatiently(
      `/crawl/v1/?${q({ url: page, callback_url: receiver.url })}`,
      apiKey,
    );
    expect(crawl.status).toBe(202);
    await receiver.waitFor(1, 30_000);
    await kit.jobsSettled();
    expect((await kit.service.request('/v2/nothing-here')).status).toBe(404);

    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);

    expect(moved('techintel_http_requests_total', { method: 'GET', route: '/healthz', status: '200' })).toBe(
      3,
    );
    expect(
      moved('techintel_http_requests_total', { method: 'GET', route: '/analyze/v1', status: '200' }),
    ).toBe(1);
    expect(moved('techintel_http_requests_total', { route: '/crawl/v1', status: '202' })).toBe(1);
    expect(moved('techintel_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(moved('techintel_http_request_duration_seconds_count', { route: '/healthz', status: '200' })).toBe(
      3,
    );

    const charged = (await kit.ledger(accountId))
      .filter((row) => row.kind === 'charge')
      .reduce((sum, row) => sum - Number(row.delta), 0);
    expect(charged).toBeGreaterThan(0);
    expect(moved('techintel_credits_total', { kind: 'charge' })).toBe(charged);

    // One page analysed synchronously, at least one more by the crawl.
    expect(moved('techintel_detection_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(moved('techintel_detection_seconds_sum')).toBeGreaterThan(0);
    expect(moved('techintel_jobs', { kind: 'analysis.run', status: 'succeeded' })).toBe(1);
    expect(moved('techintel_jobs', { kind: 'callback.deliver', status: 'succeeded' })).toBe(1);
    expect(sample(after, 'techintel_jobs', { kind: 'analysis.run', status: 'queued' })).toBe(0);
    expect(sample(after, 'techintel_job_oldest_waiting_seconds', { kind: 'analysis.run' })).toBe(0);
    expect(moved('techintel_callback_deliveries', { outcome: 'delivered' })).toBe(1);
    expect(sample(after, 'techintel_fingerprint_technologies')).toBeGreaterThan(1000);
    // Process metrics from prom-client's default collectors.
    expect(sample(after, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(after, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);

    // Nothing that identifies a caller, a site or a receiver.
    const { host } = new URL(page);
    for (const secret of [apiKey, host, new URL(receiver.url).host, '@example.com', 'x-api-key']) {
      expect(after).not.toContain(secret);
    }
  });

  it('counts failed job attempts per kind and outcome', async () => {
    const { queue, db } = kit.service.running.services;
    const before = await scrape();
    // A malformed payload is a permanent failure: the job goes dead on its first attempt.
    const { id } = await db.transaction((m) => queue.enqueue(m, 'site.index', { domain: 'not a domain' }));
    await kit.jobsSettled();
    const [job] = await db.query<{ status: string }[]>('SELECT status FROM jobs WHERE id = ?', [id]);
    expect(job.status).toBe('dead');
    const after = await scrape();
    const labels = { kind: 'site.index', outcome: 'dead' };
    expect(sample(after, 'techintel_job_failures_total', labels)).toBe(
      sample(before, 'techintel_job_failures_total', labels) + 1,
    );
    expect(
      sample(after, 'techintel_jobs', { kind: 'site.index', status: 'dead' }) -
        sample(before, 'techintel_jobs', { kind: 'site.index', status: 'dead' }),
    ).toBe(1);
  });
});

describe('GET /metrics: the waiting queue', () => {
  it('shows jobs no worker has claimed yet and the age of the oldest due one', async () => {
    const service = await startTestService({ METRICS_TOKEN: TOKEN, EMBEDDED_WORKER: 'false' });
    try {
      const { queue, db } = service.running.services;
      const scrape = async () =>
        (await service.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text;
      expect(sample(await scrape(), 'techintel_jobs', { kind: 'analysis.run', status: 'queued' })).toBe(0);
      // Due ten minutes ago, one due only tomorrow: the depth counts both, the age only the due one.
      await db.transaction(async (m) => {
        await queue.enqueue(m, 'analysis.run', { probe: 1 }, { runAt: new Date(Date.now() - 600_000) });
        await queue.enqueue(m, 'analysis.run', { probe: 2 }, { runAt: new Date(Date.now() + 86_400_000) });
      });
      const text = await scrape();
      expect(sample(text, 'techintel_jobs', { kind: 'analysis.run', status: 'queued' })).toBe(2);
      expect(
        sample(text, 'techintel_job_oldest_waiting_seconds', { kind: 'analysis.run' }),
      ).toBeGreaterThanOrEqual(600);
      expect(sample(text, 'techintel_job_oldest_waiting_seconds', { kind: 'analysis.run' })).toBeLessThan(
        86_400,
      );
      expect(sample(text, 'techintel_job_oldest_waiting_seconds', { kind: 'callback.deliver' })).toBe(0);
    } finally {
      await service.stop();
    }
  });
});

describe('GET /metrics without METRICS_TOKEN', () => {
  it('is not served', async () => {
    const service = await startTestService();
    try {
      const res = await service.request('/metrics', {
        headers: { authorization: 'Bearer anything-at-all-123' },
      });
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('techintel_');
    } finally {
      await service.stop();
    }
  });
});
