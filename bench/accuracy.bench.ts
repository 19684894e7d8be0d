import { parseArgs } from 'node:util';
import {
  CONTEXT_RULES,
  DetectionEngine,
  loadCorrectedFingerprints,
  loadFingerprints,
} from '../src/detection';
import {
  falsePositiveChange,
  measureAccuracy,
  percent,
  ruleEffects,
  type AccuracyTotals,
} from './corpus/accuracy';
import { CORPUS_ROOT, readCorpus } from './corpus/corpus-format';

/**
 * `npm run bench:accuracy [-- --json] [-- --root DIR]`: recall, version accuracy, false positives and
 * browser-only detections on the corpus of real software (test/corpus/sites), for the upstream pack
 * alone, the corrections pack, the context rules, and both; then each rule's effect and what is still
 * missed or wrongly reported. Counting rules: bench/corpus/accuracy.ts.
 */
function main(): void {
  const { values } = parseArgs({
    options: { json: { type: 'boolean', default: false }, root: { type: 'string', default: CORPUS_ROOT } },
  });
  const sites = readCorpus(values.root);
  if (sites.length === 0) throw new Error(`no corpus sites in ${values.root}`);
  const upstream = loadFingerprints();
  const corrected = loadCorrectedFingerprints();
  const variants: [string, AccuracyTotals][] = [
    ['upstream', measureAccuracy(new DetectionEngine(upstream, 'upstream', { contextRules: [] }), sites)],
    ['upstream + rules', measureAccuracy(new DetectionEngine(upstream, 'upstream'), sites)],
    [
      'corrections',
      measureAccuracy(new DetectionEngine(corrected, 'corrected', { contextRules: [] }), sites),
    ],
  ];
  const full = measureAccuracy(new DetectionEngine(corrected, 'corrected'), sites);
  variants.push(['corrections + rules', full]);
  const effects = ruleEffects(corrected, sites, full);
  const base = variants[0][1];
  const change = falsePositiveChange(base, full);
  // each rule added alone to the raw upstream pack: what it removes there, before any correction
  const onUpstream = CONTEXT_RULES.map((rule) => {
    const alone = measureAccuracy(new DetectionEngine(upstream, 'upstream', { contextRules: [rule] }), sites);
    const c = falsePositiveChange(base, alone);
    return {
      rule,
      removed: c.baseline.filter((fp) => !c.remaining.includes(fp)),
      recallChange: alone.recall - base.recall,
    };
  });
  const products = new Set(sites.map((s) => s.site.product.toLowerCase())).size;

  if (values.json) {
    console.log(
      JSON.stringify(
        {
          sites: sites.length,
          products,
          variants: Object.fromEntries(variants.map(([name, t]) => [name, { ...t, perSite: undefined }])),
          falsePositivesOfUpstream: change,
          rules: effects,
          rulesOnUpstream: onUpstream,
          remaining: full.perSite.filter(
            (s) => s.missed.length || s.falsePositives.length || s.wrongVersions.length,
          ),
        },
        null,
        2,
      ),
    );
    return;
  }

  console.log(`corpus: ${sites.length} sites, ${full.pages} pages, ${products} products (${values.root})\n`);
  const rows = [
    ['', 'recall', 'versions', 'false positives', 'FP rendered', 'browser-only'],
    ...variants.map(([name, t]) => [
      name,
      `${percent(t.recall)} (${t.found}/${t.evidenced})`,
      `${percent(t.versionAccuracy)} (${t.versionsRight}/${t.versionsExtractable} of ${t.versionsShown} shown)`,
      String(t.falsePositives),
      String(t.renderedFalsePositives),
      `${t.browserOnlyFound}/${t.browserOnly}`,
    ]),
  ];
  const widths = rows[0].map((_, col) => Math.max(...rows.map((r) => r[col].length)));
  for (const row of rows) console.log(row.map((cell, col) => cell.padEnd(widths[col])).join('  '));
  console.log(
    `\nfalse positives of raw upstream: ${change.baseline.length}, still reported ${change.remaining.length}: cut by ${percent(change.cut)}` +
      `\nfalse positives the corrections introduce: ${change.introduced.length}` +
      (change.introduced.length ? ` (${change.introduced.join('; ')})` : ''),
  );

  console.log('\nper context rule added alone to raw upstream:');
  for (const e of onUpstream)
    console.log(
      `  ${e.rule}: removes ${e.removed.length} false positives, recall change ${percent(e.recallChange)}` +
        (e.removed.length ? ` (${e.removed.join('; ')})` : ''),
    );

  console.log('\nper context rule (left out of corrections + rules):');
  for (const e of effects) {
    console.log(
      `  ${e.rule}: removes ${e.falsePositivesRemoved} false positives, recall change ${percent(e.recallChange)}` +
        (e.removed.length ? ` (${e.removed.join('; ')})` : ''),
    );
  }

  const list = (title: string, items: string[]): void => {
    console.log(`\n${title}: ${items.length}`);
    for (const item of items) console.log(`  ${item}`);
  };
  list(
    'missed (evidenced, not found)',
    full.perSite.flatMap((s) => s.missed.map((name) => `${s.id}: ${name}`)),
  );
  list(
    'wrong versions',
    full.perSite.flatMap((s) =>
      s.wrongVersions.map(
        (w) => `${s.id}: ${w.name} reported ${w.reported || '(none)'}, shown ${w.expected}`,
      ),
    ),
  );
  list(
    'false positives left',
    full.perSite.flatMap((s) => s.falsePositives.map((name) => `${s.id}: ${name}`)),
  );
  list(
    'false positives left with rendering (beyond the above)',
    full.perSite.flatMap((s) =>
      s.renderedFalsePositives.filter((n) => !s.falsePositives.includes(n)).map((n) => `${s.id}: ${n}`),
    ),
  );
  list(
    'browser-only not found with rendering',
    full.perSite.flatMap((s) => s.browserOnlyMissed.map((name) => `${s.id}: ${name}`)),
  );
}

main();
