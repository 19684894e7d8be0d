import { rawSqlOf, type RawSql } from '../../../src/storage/raw-sql';
import { SiteRowLoader } from '../../../src/storage/site-row-loader';
import { startTestService, TestService } from '../../helpers/test-service';

/** 70 sites: more than one statement's 64 host names. */
const SITES = Array.from({ length: 70 }, (_, i) => `site-${i}.loader.test`);

/** The service's own SQL, with each statement it is given written down. */
function recording(sql: RawSql): { sql: RawSql; statements: { text: string; params: unknown[] }[] } {
  const statements: { text: string; params: unknown[] }[] = [];
  return {
    statements,
    sql: {
      ...sql,
      all: <T>(text: string, params: (string | number | null | Date)[] = []) => {
        statements.push({ text, params });
        return sql.all<T>(text, params);
      },
    },
  };
}

describe('site rows read together (SiteRowLoader)', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
    for (const [i, hostname] of SITES.entries()) {
      await service.running.services.siteIndex.record({
        url: `https://${hostname}/`,
        pages: [
          { url: `https://${hostname}/`, isRoot: true, technologies: [], languages: [], title: `Site ${i}` },
        ],
        technologies: [],
        hostnames: [],
        at: new Date(),
      });
    }
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('answers every waiter with its own row, unknown names with nothing, in one statement per 64 names', async () => {
    const { sql, statements } = recording(rawSqlOf(service.running.services.db));
    const loader = new SiteRowLoader(sql);
    const asked = [...SITES, 'unknown.loader.test', SITES[3], SITES[69]];
    const rows = await Promise.all(asked.map((name) => loader.load(name)));

    expect(rows.map((row) => row?.hostname)).toEqual([...SITES, undefined, SITES[3], SITES[69]]);
    expect(new Set(rows.map((row) => row?.id)).size).toBe(71);
    // 71 distinct names: 64, then 7 padded to 8 (the last name repeated).
    expect(statements.map((s) => s.params.length)).toEqual([64, 8]);
    expect(statements[1].params.slice(7)).toEqual([statements[1].params[6]]);
  });

  it('reads again for requests of a later turn: a row changed in between is seen', async () => {
    const { sql, statements } = recording(rawSqlOf(service.running.services.db));
    const loader = new SiteRowLoader(sql);
    const before = await loader.load(SITES[0]);
    await service.running.services.siteIndex.record({
      url: `https://${SITES[0]}/`,
      pages: [{ url: `https://${SITES[0]}/`, isRoot: true, technologies: [], languages: [], title: 'Again' }],
      technologies: [],
      hostnames: [],
      at: new Date(),
    });
    const after = await loader.load(SITES[0]);
    expect(statements).toHaveLength(2);
    expect(Number(after!.hits)).toBe(Number(before!.hits) + 1);
  });

  it("gives every waiter of a failed statement the database's error", async () => {
    const real = rawSqlOf(service.running.services.db);
    const loader = new SiteRowLoader({
      ...real,
      all: () => real.all('SELECT * FROM no_such_table_here'),
    });
    const results = await Promise.allSettled([
      loader.load(SITES[1]),
      loader.load(SITES[2]),
      loader.load(SITES[1]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
  });
});
