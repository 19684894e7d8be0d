/**
 * Which detected technologies have a CPE (issue 33 §1): the production detection (corrections pack
 * and context rules) over the project's corpus, i.e. every site of test/corpus/sites (its pages
 * merged, as a crawl does) and every page of test/fixtures/pages (one site each), counted per
 * technology in sites, implied ones included. Each technology is listed with where its CPE comes
 * from: upstream's fingerprint, the project's CPE table (an addition or a correction), or none.
 * What this prints is how data/cpe/cpe-map.json was chosen (docs/security-exposure.md).
 *
 *   npm run bench:cpe-coverage [-- --json] [-- --top N]   (N: 50 by default)
 */
import { parseArgs } from 'node:util';

import {
  DetectionEngine,
  defaultFingerprintDirectory,
  loadCorrectedFingerprints,
  mergeResults,
} from '../src/detection';
import { readCpeMap } from '../src/detection/cpe-map';
import { readPack } from '../src/detection/pack-files';
import { parsePack } from '../src/detection/raw-pack';
import { readCorpus } from './corpus/corpus-format';
import { loadCorpus } from './detect/corpus';

type CpeOrigin = 'upstream' | 'table' | 'corrected' | 'none';

interface Row {
  name: string;
  sites: number;
  origin: CpeOrigin;
  cpe?: string;
}

function main(): void {
  const { values } = parseArgs({
    options: { json: { type: 'boolean', default: false }, top: { type: 'string', default: '50' } },
  });
  const engine = new DetectionEngine(loadCorrectedFingerprints(), 'corrected');
  const siteResults = [
    ...readCorpus().map((site) => mergeResults(site.inputs.map((input) => engine.analyze(staticOf(input))))),
    ...loadCorpus().map((page) => engine.analyze(page.input)),
  ];

  const sites = new Map<string, number>();
  for (const result of siteResults) {
    for (const name of new Set(result.technologies.map((t) => t.name))) {
      sites.set(name, (sites.get(name) ?? 0) + 1);
    }
  }

  const upstream = parsePack(readPack(defaultFingerprintDirectory())).technologies;
  const table = readCpeMap();
  const rows: Row[] = [...sites]
    .map(([name, count]) => {
      const entry = table.get(name);
      const own = upstream[name]?.cpe;
      const origin: CpeOrigin = entry ? (entry.replaces ? 'corrected' : 'table') : own ? 'upstream' : 'none';
      return { name, sites: count, origin, cpe: entry?.cpe ?? own };
    })
    .sort((a, b) => b.sites - a.sites || a.name.localeCompare(b.name));

  const detected = rows.length;
  const byOrigin = (origin: CpeOrigin): number => rows.filter((r) => r.origin === origin).length;
  const summary = {
    sites: siteResults.length,
    detected,
    upstream: byOrigin('upstream'),
    table: byOrigin('table'),
    corrected: byOrigin('corrected'),
    none: byOrigin('none'),
    tableEntries: table.size,
    tableEntriesDetected: [...table.keys()].filter((name) => sites.has(name)).length,
    top: Number(values.top),
    topWithCpe: rows.slice(0, Number(values.top)).filter((r) => r.origin !== 'none').length,
  };

  if (values.json) {
    console.log(JSON.stringify({ summary, rows }, null, 2));
    return;
  }
  const { top } = summary;
  console.log(
    `${summary.sites} sites, ${detected} technologies detected: CPE from upstream ${summary.upstream}, ` +
      `added by the table ${summary.table}, corrected by the table ${summary.corrected}, none ${summary.none}; ` +
      `table entries ${summary.tableEntries}, of them detected in the corpus ${summary.tableEntriesDetected}; ` +
      `of the ${top} most detected, ${summary.topWithCpe} have a CPE\n`,
  );
  rows.slice(0, top).forEach((row, i) => {
    const rank = String(i + 1).padStart(4);
    console.log(
      `${rank} ${String(row.sites).padStart(4)}  ${row.origin.padEnd(9)} ${row.name.padEnd(28)} ${row.cpe ?? ''}`,
    );
  });
}

/** The page as fetched, without what a browser rendered (a crawl without rendering). */
function staticOf<T extends { rendered?: unknown }>(input: T): Omit<T, 'rendered'> {
  const { rendered: _rendered, ...rest } = input;
  return rest;
}

main();
