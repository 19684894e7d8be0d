import type { Figures } from './measurement';

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);

/** The figures of one configuration, as the lines the bench prints. */
export function reportLines(f: Figures, load: string): string[] {
  const s = f.settings;
  const name = `${s.target} ${s.workers} worker${s.workers > 1 ? 's' : ''}`;
  const c = f.cpuPerSite;
  const p = f.cpuPerPage;
  const lines = [
    `== ${name} (load average ${load})`,
    `  import: ${f.imported.summary.imported} sites in ${f1(f.imported.seconds)} s with sites:import --crawl, ` +
      `${f.imported.summary.queued} site.index jobs queued`,
    `  run: ${f1(f.seconds)} s, ${f.drained ? 'queue drained' : `cap reached (${s.capSeconds} s)`}; ` +
      `sustained window ${f1(f.windowSeconds)} s after ${s.warmUpSeconds} s of warm-up`,
    `  sites/s ${f2(f.sitesPerSecond)} (indexed/s ${f2(f.indexedPerSecond)}), pages/s ${f2(f.pagesPerSecond)}, ` +
      `cores busy ${f2(f.cores)} (workers + database + synthetic web)`,
    `  CPU ms per site: workers ${f1(c.total)} = parse ${f1(c.parse)} + detect ${f1(c.detect)} + enrich ${f1(c.enrich)} ` +
      `+ fetch/store/rest ${f1(c.rest)}; database server ${f1(c.database)}; synthetic web ${f1(c.web)}`,
    `  CPU ms per page: workers ${f1(p.total)} = parse ${f2(p.parse)} + detect ${f2(p.detect)} + enrich ${f2(p.enrich)} ` +
      `+ fetch/store/rest ${f1(p.rest)}`,
    `  RSS MB per worker (start -> end, max): ${f.rss.map((r) => `${r.startMb} -> ${r.endMb} (${r.maxMb})`).join('; ')}`,
    `  jobs: enqueued ${f.jobs.enqueued}, succeeded ${f.jobs.done}, still queued/running ${f.jobs.open}, ` +
      `dead ${f.jobs.dead}, claimed more than once ${f.jobs.retried}; crawls logged ${f.outcomes.finished}, ` +
      `domains crawled twice ${f.outcomes.repeated.length}${f.outcomes.repeated.length ? ` (${f.outcomes.repeated.slice(0, 5).join(', ')})` : ''}; ` +
      `site rows in the database ${f.sitesInDatabase}`,
    `  check: ${checkLine(f)}`,
    `  outcomes: ${[...f.outcomes.shares]
      .sort((a, b) => b[1] - a[1])
      .map(([outcome, n]) => `${outcome} ${f1((100 * n) / Math.max(1, f.outcomes.finished))}%`)
      .join(', ')}`,
    '  by behaviour of the host: ' +
      [...f.outcomes.byBehaviour]
        .sort((a, b) => b[1].sites - a[1].sites)
        .map(
          ([behaviour, row]) =>
            `${behaviour} ${row.sites} -> ${[...row.outcomes].map(([o, n]) => `${o} ${n}`).join('/')}` +
            (row.outcomes.has('indexed')
              ? ` (${f1(row.pages / (row.outcomes.get('indexed') ?? 1))} pages)`
              : ''),
        )
        .join('; '),
    `  politeness: most requests to one host in one second ${f.busiestHost.count} (${f.busiestHost.key}), ` +
      `to one address ${f.busiestAddress.count} (${f.busiestAddress.key}); ${f.requests} HTTP requests served`,
    `  DNS questions: ${[...f.dnsQuestions].map(([type, n]) => `${type} ${n}`).join(', ')} ` +
      `(${f1([...f.dnsQuestions.values()].reduce((a, b) => a + b, 0) / Math.max(1, f.outcomes.finished))} per site)`,
  ];
  if (f.profile.length)
    lines.push(`  workers' CPU by place (V8 profile, whole run): ${f.profile.join(', ')}`);
  return lines;
}

/** Jobs enqueued = jobs finished + jobs still open, none dead, none claimed twice, each crawl logged once. */
export function checkLine(f: Figures): string {
  const problems: string[] = [];
  if (f.jobs.enqueued !== f.jobs.done + f.jobs.open + f.jobs.dead)
    problems.push(
      `enqueued ${f.jobs.enqueued} != succeeded + open + dead ${f.jobs.done + f.jobs.open + f.jobs.dead}`,
    );
  if (f.jobs.dead > 0) problems.push(`${f.jobs.dead} dead`);
  if (f.jobs.retried > 0) problems.push(`${f.jobs.retried} claimed more than once`);
  if (f.outcomes.repeated.length > 0) problems.push(`${f.outcomes.repeated.length} crawled twice`);
  if (f.outcomes.finished !== f.jobs.done)
    problems.push(`crawls logged ${f.outcomes.finished} != succeeded ${f.jobs.done}`);
  return problems.length ? `FAILED: ${problems.join('; ')}` : 'ok (no job lost, none done twice)';
}
