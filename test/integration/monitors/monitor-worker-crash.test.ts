import { ChildProcess, fork } from 'node:child_process';
import { resolve } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { standardWebhooksSecret } from '../../../src/services/platform/webhook-signatures';
import { RunningWorker, startWorker } from '../../../src/workers/worker-runtime';
import { FAST_SETTINGS } from '../analysis-api/analysis-test-kit';
import { CallbackReceiver, startCallbackReceiver } from '../../helpers/callback-receiver';
import { eventually } from '../../helpers/eventually';
import { jobsSettled } from '../../helpers/jobs-settled';
import { cleanEnv, REPO_ROOT } from '../../helpers/test-process';
import { startTestService, TestService } from '../../helpers/test-service';
import {
  ChangingSite,
  GENEROUS_FETCHES,
  JQUERY,
  startChangingSite,
  wordpressHome,
} from '../changes/changing-site';

const LEASE_SECONDS = '3';
/** Starting a worker from the TypeScript sources on a loaded machine takes a while. */
const WORKER_START_MS = 90_000;

/**
 * A monitor's batch when the worker delivering it is killed mid-delivery (SQLite, and MariaDB with
 * TEST_DATABASE_URL): the batch was committed with its changes, so nothing is lost; another worker
 * takes the job once the lease expires and delivers the same signed body under the same
 * webhook-id (receivers deduplicate on it), and the delivery log holds it once.
 */
describe('a monitor callback whose worker is killed mid-delivery', () => {
  let service: TestService;
  let site: ChangingSite;
  let receiver: CallbackReceiver;
  let child: ChildProcess | undefined;
  let worker: RunningWorker | undefined;
  let apiKey: string;
  let accountId: number;
  let secret: string;

  const services = () => service.running.services;

  beforeAll(async () => {
    site = await startChangingSite({ '/': wordpressHome('6.4.2', JQUERY) });
    service = await startTestService({
      ...FAST_SETTINGS,
      ...GENEROUS_FETCHES,
      LOG_LEVEL: 'error',
      EMBEDDED_WORKER: 'false',
      RECRAWL_PER_MINUTE: '0',
      JOB_LEASE_SECONDS: LEASE_SECONDS,
      CALLBACK_TIMEOUT_MS: '60000',
    });
    ({ apiKey, accountId } = await service.createAccount({ plan: 'large', credits: 100 }));
    secret = (await services().accounts.createSigningSecret(accountId)).secret;
    receiver = await startCallbackReceiver({ secret });
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await worker?.stop();
    await receiver?.close();
    await service?.stop();
    await site?.close();
  });

  it('is delivered once more by another worker, with the same webhook-id and body, and logged once', async () => {
    const created = await service.request('/v2/monitors', {
      key: apiKey,
      method: 'POST',
      body: { domains: [site.hostname], callbackUrl: receiver.url },
    });
    expect(created.status).toBe(200);
    // The first attempt never gets an answer; the one after the crash is accepted.
    receiver.reply((_request, index) => (index === 0 ? 'hang' : 200));

    expect((await services().analyzer.analyzePage(site.url)).ok).toBe(true);
    const [delivery] = (await services().callbacks.list(accountId)).deliveries;
    expect(delivery).toMatchObject({ event: 'monitor.changes', status: 'pending', attempts: 0 });

    child = fork(resolve(REPO_ROOT, 'src/worker-main.ts'), [], {
      execArgv: ['-r', '@swc-node/register'],
      env: cleanEnv({
        NODE_ENV: 'test',
        DATABASE_URL: services().config.DATABASE_URL,
        LOG_LEVEL: 'silent',
        ALLOW_PRIVATE_TARGETS: 'true',
        RENDER: 'off',
        RECRAWL_PER_MINUTE: '0',
        JOB_LEASE_SECONDS: LEASE_SECONDS,
        JOB_POLL_INTERVAL_MS: '50',
        CALLBACK_TIMEOUT_MS: '60000',
        DNS_SERVERS: '127.0.0.1:9',
      }),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const exited = new Promise((resolveExit) => child!.once('exit', resolveExit));
    await receiver.waitFor(1, WORKER_START_MS);
    child.kill('SIGKILL');
    await exited;
    // Nobody recorded an outcome: the attempt died with the worker.
    expect((await services().callbacks.get(accountId, delivery.id)).status).toBe('pending');

    worker = startWorker(services());
    await receiver.waitFor(2, 60_000);
    await eventually(
      async () => (await services().callbacks.get(accountId, delivery.id)).status === 'delivered',
      'the delivery logged as delivered',
    );
    await jobsSettled(service);
    const [lost, delivered] = receiver.received;
    expect(receiver.received).toHaveLength(2);
    expect(delivered.headers['webhook-id']).toBe(delivery.id);
    expect(lost.headers['webhook-id']).toBe(delivery.id);
    expect(delivered.body).toBe(lost.body);
    const batch = new Webhook(standardWebhooksSecret(secret)).verify(
      delivered.body,
      delivered.headers as Record<string, string>,
    ) as { monitorId: number; changes: { technology: string }[] };
    expect(batch.monitorId).toBe(created.body.id);
    expect(batch.changes.map((c) => c.technology)).toEqual(expect.arrayContaining(['wordpress', 'jquery']));
    const log = (await services().callbacks.list(accountId)).deliveries;
    expect(log.map((d) => [d.id, d.status, d.attempts])).toEqual([[delivery.id, 'delivered', 1]]);
    const [job] = await services().db.query<{ attempts: number | string; status: string }[]>(
      "SELECT attempts, status FROM jobs WHERE kind = 'callback.deliver'",
    );
    expect([Number(job.attempts), job.status]).toEqual([2, 'succeeded']);
  });
});
