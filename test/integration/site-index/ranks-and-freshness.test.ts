import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DomainRankEntity, SiteEntity } from '../../../src/storage/entities';
import { JobEntity } from '../../../src/storage/entities/job.entity';
import { FreshnessService } from '../../../src/services/site-index/freshness.service';
import { TrafficRankService } from '../../../src/services/site-index/traffic-rank.service';
import { eventually } from '../../helpers/eventually';
import { distEntry, cleanEnv, spawnNode } from '../../helpers/test-process';
import { startTestSites, TestSites } from '../../helpers/test-sites';
import { startTestService, TestService } from '../../helpers/test-service';

/**
 * Ranked domain lists imported into the index, observed ranks when none is imported, and the
 * freshness scheduler re-analysing stale sites, on SQLite and (with TEST_DATABASE_URL) MariaDB.
 */
describe('traffic ranks and freshness', () => {
  let service: TestService;
  let sites: TestSites;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ranks-'));
    sites = await startTestSites();
    // The worker's own periodic runs stay out of the way: the tests call the services themselves.
    service = await startTestService({
      RECRAWL_AFTER_DAYS: '0',
      TRAFFIC_RANK_REFRESH_MINUTES: '0',
      JOB_POLL_INTERVAL_MS: '50',
    });
  });
  afterAll(async () => {
    await service?.stop();
    await sites?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const services = () => service.running.services;
  const site = (hostname: string) => services().db.manager.findOneBy(SiteEntity, { hostname });
  const record = (url: string, pages: number) =>
    services().siteIndex.record({
      url,
      pages: Array.from({ length: pages }, (_, i) => ({
        url: `${url}p${i}`,
        isRoot: i === 0,
        technologies: [],
        languages: [],
      })),
      technologies: [],
      hostnames: [],
      at: new Date(),
    });
  const queuedJobs = () =>
    services().db.manager.find(JobEntity, { where: { kind: 'site.index' }, order: { id: 'ASC' } });

  it('ranks sites by their recorded page views while no list is imported (1, 2, 2, 4)', async () => {
    await record('https://busy.test/', 4);
    await record('https://even-a.test/', 2);
    await record('https://even-b.test/', 2);
    await record('https://quiet.test/', 1);
    const result = await services().trafficRanks.refreshObservedRanks();
    expect(result.ranked).toBe(4);
    const ranks = await Promise.all(['busy.test', 'even-a.test', 'even-b.test', 'quiet.test'].map(site));
    expect(ranks.map((s) => [s?.trafficRank, s?.rankSource])).toEqual([
      [1, 'observed'],
      [2, 'observed'],
      [2, 'observed'],
      [4, 'observed'],
    ]);
    // Nothing moved: a second run changes nothing.
    expect((await services().trafficRanks.refreshObservedRanks()).changed).toBe(0);

    // Read two sites at a time: a tie that straddles pages keeps one rank, and ranks count on.
    const paged = new TrafficRankService(services().db, { pageSize: 2 });
    await record('https://even-c.test/', 2);
    expect((await paged.refreshObservedRanks()).ranked).toBe(5);
    const after = await Promise.all(
      ['busy.test', 'even-a.test', 'even-b.test', 'even-c.test', 'quiet.test'].map(site),
    );
    expect(after.map((s) => s?.trafficRank)).toEqual([1, 2, 2, 2, 5]);
    expect((await paged.refreshObservedRanks()).changed).toBe(0);
    expect((await services().trafficRanks.refreshObservedRanks()).changed).toBe(0);
  });

  it('imports a Tranco list: registrable domains, first rank kept, invalid lines reported by number', async () => {
    const file = [
      '1,busy.test',
      '2,www.example.co.uk',
      'garbage',
      '4,',
      '5,shop.example.co.uk',
      '6,fresh.test',
      'x,y.test',
      '8,http://with-scheme.test/path',
    ].join('\n');
    const summary = await services().siteImport.importRanks(Readable.from([file]), { format: 'tranco' });
    expect(summary).toMatchObject({
      read: 8,
      imported: 4,
      invalid: 3,
      duplicates: 1,
      queued: 0,
      sitesRanked: 1,
    });
    expect(summary.invalidLines).toEqual([3, 4, 7]);
    const rows = await services().db.manager.find(DomainRankEntity, { order: { rank: 'ASC' } });
    expect(rows.map((r) => [r.domain, r.rank, r.source])).toEqual([
      ['busy.test', 1, 'tranco'],
      ['example.co.uk', 2, 'tranco'],
      ['fresh.test', 6, 'tranco'],
      ['with-scheme.test', 8, 'tranco'],
    ]);
    // The indexed site on the list takes its rank now; the others' observed ranks are cleared at the next run.
    expect(await site('busy.test')).toMatchObject({ trafficRank: 1, rankSource: 'import' });
    await services().trafficRanks.refreshObservedRanks();
    expect(await site('quiet.test')).toMatchObject({ trafficRank: null, rankSource: null });
    expect(await site('busy.test')).toMatchObject({ trafficRank: 1, rankSource: 'import' });
    // A domain of the list analysed later takes its rank when it is first recorded.
    await record('https://fresh.test/', 1);
    expect(await site('fresh.test')).toMatchObject({ trafficRank: 6, rankSource: 'import' });
  });

  it('imports Majestic (header) and plain lists, updates ranks on re-import, and stops at --limit', async () => {
    const majestic =
      'GlobalRank,TldRank,Domain,TLD,RefSubNets\n1,1,google.test,test,10\n2,2,busy.test,test,9\n';
    const summary = await services().siteImport.importRanks(Readable.from([majestic]), {
      format: 'majestic',
    });
    expect(summary).toMatchObject({ read: 3, imported: 2, invalid: 0 });
    expect(await site('busy.test')).toMatchObject({ trafficRank: 2, rankSource: 'import' });
    const plain = 'alpha.test\nbeta.test\ngamma.test\n';
    const limited = await services().siteImport.importRanks(Readable.from([plain]), {
      format: 'plain',
      limit: 2,
    });
    expect(limited.imported).toBe(2);
    const beta = await services().db.manager.findOneBy(DomainRankEntity, { domain: 'beta.test' });
    expect(beta).toMatchObject({ rank: 2, source: 'plain' });
    expect(await services().db.manager.findOneBy(DomainRankEntity, { domain: 'gamma.test' })).toBeNull();
    await expect(
      services().siteImport.importRanks(Readable.from(['1,2,3\n']), { format: 'majestic' }),
    ).rejects.toThrow(/header/);
  });

  it("attaches imported ranks to a domain's sites on any port (a list can be tried against a local site)", async () => {
    await record('http://ported.test:8080/', 1);
    await record('http://www.ported.test:8081/', 1);
    await record('http://shop.ported.test:8080/', 1);
    const summary = await services().siteImport.importRanks(
      Readable.from(['11,ported.test\n12,later.test\n']),
      { format: 'tranco' },
    );
    expect(summary).toMatchObject({ imported: 2, sitesRanked: 2 });
    expect(await site('ported.test:8080')).toMatchObject({ trafficRank: 11, rankSource: 'import' });
    expect(await site('ported.test:8081')).toMatchObject({ trafficRank: 11, rankSource: 'import' });
    // A subdomain is a site of its own, with no rank of the list (as on the default ports).
    expect(await site('shop.ported.test:8080')).toMatchObject({ rankSource: null });
    // A site on a port analysed after the import takes its domain's rank when first recorded.
    await record('http://later.test:3000/', 1);
    expect(await site('later.test:3000')).toMatchObject({ trafficRank: 12, rankSource: 'import' });
  });

  it('keeps the scheme each site last answered on (a list file writes its url with it)', async () => {
    await record('http://plain.test:8080/', 1);
    await record('https://secure.test/', 1);
    expect(await site('plain.test:8080')).toMatchObject({ scheme: 'http' });
    expect(await site('secure.test')).toMatchObject({ scheme: 'https' });
    await record('https://plain.test:8080/', 1);
    expect(await site('plain.test:8080')).toMatchObject({ scheme: 'https' });
  });

  it('enqueues one site.index job per domain with --crawl, and nothing twice on a re-import', async () => {
    const file = '1,crawl-a.test\n2,crawl-b.test\n';
    const before = (await queuedJobs()).length;
    const first = await services().siteImport.importRanks(Readable.from([file]), {
      format: 'tranco',
      crawl: true,
    });
    expect(first.queued).toBe(2);
    const again = await services().siteImport.importRanks(Readable.from([file]), {
      format: 'tranco',
      crawl: true,
    });
    expect(again.queued).toBe(0);
    const jobs = (await queuedJobs()).slice(before);
    expect(jobs.map((j) => JSON.parse(j.payload).domain)).toEqual(['crawl-a.test', 'crawl-b.test']);
  });

  it('runs as `npm run admin -- sites:import` with periodic progress lines off a terminal and a JSON summary', async () => {
    const file = join(dir, 'top.csv');
    writeFileSync(
      file,
      Array.from({ length: 120_000 }, (_, i) => `${i + 1},site-${i + 1}.test`).join('\n') + '\nbad line\n',
    );
    const cli = spawnNode(
      distEntry('src/admin/cli.js'),
      ['sites:import', '--file', file, '--format', 'tranco', '--json'],
      cleanEnv({ DATABASE_URL: service.running.services.config.DATABASE_URL, LOG_LEVEL: 'silent' }),
    );
    const { code } = await cli.exited;
    expect(cli.stderr()).toMatch(/^read 100000, imported \d+, invalid 0, queued 0$/m);
    expect(code).toBe(0);
    // No NODE_OPTIONS here: the command capped its own heap (it runs itself again with the flag).
    const heapLimit = Number(/^peak RSS \d+ MB, heap limit (\d+) MB$/m.exec(cli.stderr())?.[1]);
    expect(heapLimit).toBeGreaterThan(0);
    expect(heapLimit).toBeLessThan(300);
    const summary = JSON.parse(cli.stdout().trim().split('\n').pop()!);
    expect(summary).toMatchObject({ read: 120_001, imported: 120_000, invalid: 1, invalidLines: [120_001] });
    expect(
      await services().db.manager.findOneBy(DomainRankEntity, { domain: 'site-120000.test' }),
    ).toMatchObject({
      rank: 120_000,
    });
  }, 120_000);

  it('re-analyses stale sites, most-trafficked first, at most RECRAWL_PER_MINUTE, once a day', async () => {
    const { db } = services();
    // A real local site in the index, made stale.
    const url = sites.url('/');
    const analysed = await services().analyzer.analyzePage(url);
    expect(analysed.ok).toBe(true);
    const host = new URL(url).host;
    const old = new Date(Date.now() - 40 * 86_400_000);
    await db.manager.update(
      SiteEntity,
      { hostname: host },
      { lastAnalyzedAt: old, crawlAttemptedAt: old, trafficRank: 3 },
    );
    await db.manager.update(
      SiteEntity,
      { hostname: 'busy.test' },
      { lastAnalyzedAt: old, crawlAttemptedAt: old },
    );
    await db.manager.update(
      SiteEntity,
      { hostname: 'quiet.test' },
      { lastAnalyzedAt: old, crawlAttemptedAt: null },
    );
    const freshness = new FreshnessService(db, services().queue, { recrawlAfterDays: 30, perRun: 2 });
    const first = await freshness.scheduleStale();
    // busy.test has rank 2 (imported), the local site 3, quiet.test none: it waits for the next run.
    expect(first.scheduled).toEqual(['busy.test', host]);
    expect((await freshness.scheduleStale()).scheduled).toEqual(['quiet.test']);
    expect((await freshness.scheduleStale()).scheduled).toEqual([]);
    // The worker runs the refresh: the local site is analysed again (its stored result is fresh again).
    await eventually(
      async () => ((await site(host))?.lastAnalyzedAt.getTime() ?? 0) > old.getTime() + 86_400_000,
      { describe: 'the stale local site to be re-analysed', timeoutMs: 30_000, intervalMs: 100 },
    );
  }, 60_000);
});
