/**
 * What the technology timeline and the change log add to storing one analysis (issue 32: the
 * target for per-analysis aggregates is 10% or less), on SQLite and on MariaDB, in one run.
 *
 * Two site indexes share one fresh database: one as the service runs it (SiteIndexService.record
 * with its TimelineWriter), and one whose timeline step is replaced by the read the index did
 * before it (the site's technology rows) and writes nothing. They store the same analyses of
 * different sites, interleaved in rounds (A, B, B, A, ...) so that load on this shared machine falls
 * on both alike: RECORD_BENCH_SITES sites, each analysed RECORD_BENCH_ROUNDS times (three pages,
 * 20 technologies, 8 with versions; from the second analysis on, each site upgrades one technology,
 * drops one and adds one every other round, so the change log is written too), and again for steady
 * sites (the same analysis every round: the common case of a re-analysis). Prints the mean and
 * p50 milliseconds per record of both, the ratio, and this process's CPU time per record (the
 * steadier figure on a loaded machine for SQLite, which runs in this process).
 *
 *   npm run bench:record   (RECORD_BENCH_SITES=200, RECORD_BENCH_ROUNDS=6,
 *                           RECORD_BENCH_MARIADB_URL=mysql://root@127.0.0.1:3306/ or "off")
 */
import './crawl/quiet-logs';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DetectedTechnology } from '../src/detection';
import { SiteIndexService, type SiteObservation } from '../src/services/site-index/site-index.service';
import { Database } from '../src/storage/database';
import { SiteTechnologyEntity } from '../src/storage/entities';
import { withMariaDbDatabase } from './mariadb-scratch';

const SITES = Math.max(10, Number(process.env.RECORD_BENCH_SITES ?? 200));
const ROUNDS = Math.max(2, Number(process.env.RECORD_BENCH_ROUNDS ?? 6));
const MARIADB = process.env.RECORD_BENCH_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/';
/** Sites per slice of a round: A and B take turns slice by slice. */
const SLICE = 10;

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

function technology(slug: string, version: string): DetectedTechnology {
  return {
    name: slug,
    slug,
    categories: [{ id: 1, slug: 'cms', name: 'CMS', priority: 1 }],
    versions: version ? [version] : [],
    version,
    confidence: 100,
    icon: '',
    website: '',
    implied: false,
    evidence: [],
  };
}

/** Analysis `round` of site `site`: what changes from one round to the next is small, as on the web. */
function observation(host: string, site: number, round: number, changing: boolean): SiteObservation {
  if (!changing) round = 0;
  const techs: DetectedTechnology[] = [];
  for (let t = 0; t < 20; t++) {
    const versioned = t < 8;
    // One technology is upgraded each round.
    const version = versioned ? `${1 + (t === site % 8 ? round : 0)}.${t}.${site % 5}` : '';
    techs.push(technology(`tech-${(site + t) % 60}`, version));
  }
  // Every other round one technology is dropped and another added.
  if (round % 2 === 1) techs[19] = technology(`extra-${site % 7}`, '');
  const url = `https://${host}/`;
  const pages = ['/', '/about', '/contact'].map((path, p) => ({
    url: `https://${host}${path}`,
    isRoot: p === 0,
    // The home page shows everything; the other pages a part.
    technologies: p === 0 ? techs : techs.filter((_, i) => i % (p + 2) === 0),
    languages: ['en'],
    title: p === 0 ? `Site ${site}` : undefined,
  }));
  return {
    url,
    pages,
    technologies: techs,
    hostnames: [host],
    at: new Date(),
    fingerprintsVersion: 'fp-bench',
  };
}

/** The index without the timeline's writes: its step reads the site's rows (as the index did) and writes nothing. */
function withoutTimeline(db: Database): SiteIndexService {
  const index = new SiteIndexService(db);
  const writer = index.timeline;
  Object.assign(writer, {
    plan: async (m: Parameters<typeof writer.plan>[0], siteId: number) => ({
      prior: await m.find(SiteTechnologyEntity, { where: { siteId } }),
      evidence: new Map<string, string>(),
      undetected: [],
      changes: [],
      versions: [],
    }),
    write: async () => [],
  });
  return index;
}

async function measure(label: string, databaseUrl: string, changing: boolean): Promise<void> {
  const db = await Database.open(databaseUrl);
  try {
    const variants = [
      { name: 'with timeline', index: new SiteIndexService(db), times: [] as number[], cpu: 0 },
      { name: 'without', index: withoutTimeline(db), times: [] as number[], cpu: 0 },
    ];
    for (let round = 0; round < ROUNDS; round++) {
      for (let slice = 0; slice < SITES; slice += SLICE) {
        const order = (slice / SLICE + round) % 2 === 0 ? variants : [...variants].reverse();
        for (const variant of order) {
          for (let site = slice; site < Math.min(SITES, slice + SLICE); site++) {
            const host = `${variant === variants[0] ? 'a' : 'b'}${site}.bench.test`;
            const started = performance.now();
            const cpu = process.cpuUsage();
            await variant.index.record(observation(host, site, round, changing));
            // The first round creates the sites: it is the untimed warm-up.
            if (round > 0) {
              variant.times.push(performance.now() - started);
              const used = process.cpuUsage(cpu);
              variant.cpu += (used.user + used.system) / 1000;
            }
          }
        }
      }
    }
    const title = `${label}, ${changing ? 'every analysis changes something' : 'steady sites (no change after the first)'}`;
    const changes = Number(
      (await db.query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM technology_changes'))[0].n,
    );
    const stats = (times: number[]) => {
      const sorted = [...times].sort((x, y) => x - y);
      return {
        mean: times.reduce((s, t) => s + t, 0) / times.length,
        p50: sorted[Math.floor(sorted.length / 2)],
      };
    };
    const [a, b] = variants.map((v) => stats(v.times));
    console.log(
      `${title}: ${variants[0].times.length} records each; with timeline ${a.mean.toFixed(3)} ms mean, ` +
        `${a.p50.toFixed(3)} ms p50; without ${b.mean.toFixed(3)} ms mean, ${b.p50.toFixed(3)} ms p50; ` +
        `cost +${((a.mean / b.mean - 1) * 100).toFixed(1)}% (mean), +${((a.p50 / b.p50 - 1) * 100).toFixed(1)}% (p50); ` +
        `${changes} change rows written`,
    );
    const [ca, cb] = variants.map((v) => v.cpu / v.times.length);
    console.log(
      `${title}: CPU of this process per record (SQLite runs in it; MariaDB's server is not counted): ` +
        `with timeline ${ca.toFixed(3)} ms, without ${cb.toFixed(3)} ms, cost +${((ca / cb - 1) * 100).toFixed(1)}%`,
    );
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  console.log(`load average at start: ${load()} (a shared machine: other work runs alongside)`);
  const dir = mkdtempSync(join(tmpdir(), 'record-bench-'));
  try {
    for (const changing of [true, false])
      await measure('SQLite', `sqlite:${join(dir, `bench-${changing}.db`)}`, changing);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (MARIADB !== 'off')
    for (const changing of [true, false])
      await withMariaDbDatabase(MARIADB, 'record_bench', (url) => measure('MariaDB', url, changing));
  console.log(`load average at end: ${load()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
