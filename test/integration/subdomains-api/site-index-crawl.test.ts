import { JobHandlerRegistry, JobKinds, JobRunner, PermanentJobError } from '../../../src/jobs';
import type { JobContext } from '../../../src/jobs';
import { SiteEntity } from '../../../src/storage/entities';
import { siteIndexKey } from '../../../src/services/subdomains/subdomain.service';
import { createSiteIndexHandler } from '../../../src/workers/site-index.worker';
import { startDnsZoneServer, type DnsZoneServer } from '../../helpers/dns-zone-server';
import { eventually } from '../../helpers/eventually';
import { startTestService, TestService } from '../../helpers/test-service';
import { getSubdomains } from './subdomain-test-kit';

/** The background crawl the finder queues for a domain it sees for the first time. */
describe('subdomain finder: background crawl of an unseen domain', () => {
  let dns: DnsZoneServer;
  let service: TestService;

  beforeAll(async () => {
    dns = await startDnsZoneServer([{ origin: 'unrelated.test', records: {} }]);
    service = await startTestService({
      DNS_SERVERS: dns.server,
      EMBEDDED_WORKER: 'false',
      SUBDOMAIN_DNS_QUERY_TIMEOUT_MS: '300',
      SUBDOMAIN_DNS_TRIES: '1',
      SUBDOMAIN_INLINE_DNS_BUDGET_MS: '1000',
      FETCH_CONNECT_TIMEOUT_MS: '500',
      FETCH_TIMEOUT_MS: '1000',
      CRAWL_DEADLINE_MS: '2000',
    });
  });
  afterAll(async () => {
    await service?.stop();
    await dns?.close();
  });

  it('queues exactly one crawl of the domain’s site, however often the domain is asked for', async () => {
    const { apiKey } = await service.createAccount({ plan: 'business', credits: 100 });
    for (let i = 0; i < 2; i++) {
      const res = await getSubdomains(service, apiKey, { domains: 'never-crawled.test' });
      expect(res.status).toBe(200);
    }
    const { queue } = service.running.services;
    const job = await queue.findByUniqueKey(siteIndexKey('never-crawled.test'));
    expect(job).toMatchObject({ kind: JobKinds.siteIndex, status: 'queued' });
    expect(JSON.parse(job!.payload)).toEqual({ domain: 'never-crawled.test' });
    const all = await queue.list({ kind: JobKinds.siteIndex });
    expect(all.jobs.filter((j) => JSON.parse(j.payload).domain === 'never-crawled.test')).toHaveLength(1);
  });

  it('finishes the job when the site cannot be reached, recording nothing (a crawl failure is no job failure)', async () => {
    const { services } = service.running;
    const registry = new JobHandlerRegistry().register(
      JobKinds.siteIndex,
      createSiteIndexHandler(services.analyzer),
    );
    const runner = new JobRunner(services.queue, registry, {
      kinds: [JobKinds.siteIndex],
      concurrency: 1,
      leaseMs: 30_000,
      pollIntervalMs: 50,
      shutdownGraceMs: 1000,
    });
    runner.start();
    try {
      const job = await eventually(
        async () => {
          const found = await services.queue.findByUniqueKey(siteIndexKey('never-crawled.test'));
          return (found?.status === 'succeeded' || found?.status === 'dead') && found;
        },
        { describe: 'the site-index job to finish', intervalMs: 50 },
      );
      expect(job.status).toBe('succeeded');
    } finally {
      await runner.stop();
    }
    expect(await services.db.manager.count(SiteEntity, { where: { domain: 'never-crawled.test' } })).toBe(0);
  });

  it('refuses a payload that is not a registrable domain, for good', async () => {
    const handler = createSiteIndexHandler(service.running.services.analyzer);
    const context = { signal: new AbortController().signal } as JobContext;
    await expect(handler({ domain: '127.0.0.1' }, context)).rejects.toBeInstanceOf(PermanentJobError);
    await expect(handler({ domain: 'Example.COM' }, context)).rejects.toBeInstanceOf(PermanentJobError);
  });
});
