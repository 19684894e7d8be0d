import { SiteEntity } from '../../../src/storage/entities';
import { PageSampleRepository } from '../../../src/storage/page-sample.repository';
import { openTestDatabase, OpenedTestDatabase } from '../jobs/job-test-kit';

/**
 * Issue 35: crawls finishing at the same moment each store their site's front page sample. On
 * MariaDB the count-and-insert statement locked every row it counted and concurrent writers
 * deadlocked (51 samples lost in a 2-worker bench run). SQLite and (TEST_DATABASE_URL) MariaDB.
 */
describe('page samples written by concurrent crawls', () => {
  let test: OpenedTestDatabase;
  let samples: PageSampleRepository;
  const siteIds: number[] = [];

  beforeAll(async () => {
    test = await openTestDatabase();
    samples = new PageSampleRepository(test.db);
    const at = new Date('2026-11-27T00:00:00Z');
    for (let n = 0; n < 40; n++) {
      const site = await test.db.manager.save(
        test.db.manager.create(SiteEntity, {
          hostname: `s${n}.test`,
          domain: `s${n}.test`,
          tld: '.test',
          languages: '[]',
          firstSeenAt: at,
          lastAnalyzedAt: at,
        }),
      );
      siteIds.push(site.id);
    }
  });
  afterAll(async () => {
    await test.close();
  });

  const row = (siteId: number) => ({
    siteId,
    url: `http://s${siteId}.test/`,
    capturedAt: new Date(),
    data: Buffer.from(`page of ${siteId}`),
  });

  it('adds every sample, none lost to a lock, and refreshes a site that has one', async () => {
    const written = await Promise.all(siteIds.slice(0, 30).map((id) => samples.write(row(id), 100)));
    expect(written).toEqual(siteIds.slice(0, 30).map(() => 'added'));
    expect(await samples.count()).toBe(30);
    expect(await samples.write(row(siteIds[0]), 100)).toBe('refreshed');
    expect(await samples.count()).toBe(30);
  });

  it('adds none past the maximum, but still refreshes', async () => {
    expect(await samples.write(row(siteIds[35]), 30)).toBe('full');
    expect(await samples.write(row(siteIds[1]), 30)).toBe('refreshed');
    expect(await samples.write(row(siteIds[36]), 100, true)).toBe('full');
    expect(await samples.count()).toBe(30);
  });
});
