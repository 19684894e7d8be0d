import {
  CONTEXT_RULES,
  DetectionEngine,
  mergeResults,
  type ContextRuleName,
  type DetectedTechnology,
  type DetectionInput,
  type Fingerprints,
} from '../../src/detection';
import type { CorpusSite } from './corpus-format';

/**
 * Accuracy of a detector on the corpus of real software (test/corpus/sites), against each site's
 * truth file. Shared by `npm run bench:accuracy` and the CI test, so both count the same way:
 *
 * - recall: `evidenced` technologies found, over all `evidenced` (crawler's view, no rendering);
 * - versions: of the `evidenced` technologies with a version in the truth file, those whose version
 *   the patterns can extract, and how many of these were right. "Can extract" means a pattern that
 *   carries a version tag matched on the site (its evidence names a `\;version:` pattern) or the
 *   detector reported a version at all: the page shows the version where a versioned pattern looks.
 *   A version the pages show only where no pattern looks (a footer's text) is not extractable, and is
 *   counted apart (`versionsShown`) so a pattern added for it shows as a gain;
 * - false positives: technologies reported (found or implied) that the truth file does not list as
 *   installed (`evidenced`, `notVisible` or `browserOnly`);
 * - browser-only: `browserOnly` technologies found once the captured rendering is used.
 */

export interface SiteScore {
  id: string;
  missed: string[];
  found: number;
  evidenced: number;
  versionsShown: number;
  versionsExtractable: number;
  versionsRight: number;
  wrongVersions: { name: string; expected: string; reported: string }[];
  falsePositives: string[];
  browserOnly: number;
  browserOnlyFound: number;
  browserOnlyMissed: string[];
  /** False positives with rendering on (the browser's view adds js and live-DOM patterns). */
  renderedFalsePositives: string[];
}

export interface AccuracyTotals {
  sites: number;
  pages: number;
  evidenced: number;
  found: number;
  recall: number;
  versionsShown: number;
  versionsExtractable: number;
  versionsRight: number;
  versionAccuracy: number;
  falsePositives: number;
  renderedFalsePositives: number;
  browserOnly: number;
  browserOnlyFound: number;
  perSite: SiteScore[];
}

function staticInput(input: DetectionInput): DetectionInput {
  const { rendered: _rendered, ...rest } = input;
  return rest;
}

function normalVersion(version: string): string {
  return version.trim().replace(/^v(?=\d)/i, '');
}

const VERSIONED_PATTERN = /\\;version:/;

export function scoreSite(engine: DetectionEngine, site: CorpusSite): SiteScore {
  const { truth } = site;
  const plain = mergeResults(site.inputs.map((input) => engine.analyze(staticInput(input))));
  const hasRendering = site.inputs.some((input) => input.rendered);
  const rendered = hasRendering ? mergeResults(site.inputs.map((input) => engine.analyze(input))) : plain;
  const byName = new Map<string, DetectedTechnology>(plain.technologies.map((t) => [t.name, t]));
  const renderedNames = new Set(rendered.technologies.map((t) => t.name));
  const installed = new Set([
    ...truth.evidenced.map((e) => e.name),
    ...truth.notVisible,
    ...truth.browserOnly.map((e) => e.name),
  ]);

  const score: SiteScore = {
    id: site.site.id,
    missed: [],
    found: 0,
    evidenced: truth.evidenced.length,
    versionsShown: 0,
    versionsExtractable: 0,
    versionsRight: 0,
    wrongVersions: [],
    falsePositives: plain.technologies.map((t) => t.name).filter((name) => !installed.has(name)),
    browserOnly: truth.browserOnly.length,
    browserOnlyFound: 0,
    browserOnlyMissed: [],
    renderedFalsePositives: rendered.technologies.map((t) => t.name).filter((name) => !installed.has(name)),
  };
  for (const want of truth.evidenced) {
    const got = byName.get(want.name);
    if (!got) {
      score.missed.push(want.name);
      continue;
    }
    score.found++;
    if (!want.version) continue;
    score.versionsShown++;
    const extractable =
      got.versions.length > 0 || got.evidence.some((e) => VERSIONED_PATTERN.test(e.pattern));
    if (!extractable) continue;
    score.versionsExtractable++;
    if (normalVersion(got.version) === normalVersion(want.version)) score.versionsRight++;
    else score.wrongVersions.push({ name: want.name, expected: want.version, reported: got.version });
  }
  for (const want of truth.browserOnly) {
    if (renderedNames.has(want.name)) score.browserOnlyFound++;
    else score.browserOnlyMissed.push(want.name);
  }
  return score;
}

export function measureAccuracy(engine: DetectionEngine, sites: readonly CorpusSite[]): AccuracyTotals {
  const perSite = sites.map((site) => scoreSite(engine, site));
  const sum = (f: (s: SiteScore) => number): number => perSite.reduce((total, s) => total + f(s), 0);
  const evidenced = sum((s) => s.evidenced);
  const found = sum((s) => s.found);
  const versionsExtractable = sum((s) => s.versionsExtractable);
  const versionsRight = sum((s) => s.versionsRight);
  return {
    sites: sites.length,
    pages: sites.reduce((total, s) => total + s.inputs.length, 0),
    evidenced,
    found,
    recall: evidenced ? found / evidenced : 1,
    versionsShown: sum((s) => s.versionsShown),
    versionsExtractable,
    versionsRight,
    versionAccuracy: versionsExtractable ? versionsRight / versionsExtractable : 1,
    falsePositives: sum((s) => s.falsePositives.length),
    renderedFalsePositives: sum((s) => s.renderedFalsePositives.length),
    browserOnly: sum((s) => s.browserOnly),
    browserOnlyFound: sum((s) => s.browserOnlyFound),
    perSite,
  };
}

/** What became of the raw upstream patterns' false positives, and which ones a detector added. */
export interface FalsePositiveChange {
  /** False positives of the baseline (site: technology). */
  baseline: string[];
  /** Those the detector still reports. */
  remaining: string[];
  /** Share of the baseline's false positives gone (1 when the baseline has none). */
  cut: number;
  /** False positives the detector reports that the baseline did not (what its additions got wrong). */
  introduced: string[];
}

export function falsePositiveChange(baseline: AccuracyTotals, detector: AccuracyTotals): FalsePositiveChange {
  const list = (t: AccuracyTotals): string[] =>
    t.perSite.flatMap((s) => s.falsePositives.map((name) => `${s.id}: ${name}`));
  const before = list(baseline);
  const after = new Set(list(detector));
  const remaining = before.filter((fp) => after.has(fp));
  const beforeSet = new Set(before);
  return {
    baseline: before,
    remaining,
    cut: before.length ? 1 - remaining.length / before.length : 1,
    introduced: [...after].filter((fp) => !beforeSet.has(fp)),
  };
}

export interface RuleEffect {
  rule: ContextRuleName;
  /** False positives the rule removes: those of the corrected detector without it, less with it. */
  falsePositivesRemoved: number;
  /** What it removes, as site: technology. */
  removed: string[];
  /** Recall with the rule minus recall without it (0: the rule loses nothing). */
  recallChange: number;
}

/** Each rule's effect, measured by leaving it out of the full corrected detector. */
export function ruleEffects(
  fingerprints: Fingerprints,
  sites: readonly CorpusSite[],
  full: AccuracyTotals,
): RuleEffect[] {
  return CONTEXT_RULES.map((rule) => {
    const without = measureAccuracy(
      new DetectionEngine(fingerprints, 'corrected', {
        contextRules: CONTEXT_RULES.filter((r) => r !== rule),
      }),
      sites,
    );
    const fullFp = new Map(full.perSite.map((s) => [s.id, new Set(s.falsePositives)]));
    const removed = without.perSite.flatMap((s) =>
      s.falsePositives.filter((name) => !fullFp.get(s.id)?.has(name)).map((name) => `${s.id}: ${name}`),
    );
    return {
      rule,
      falsePositivesRemoved: without.falsePositives - full.falsePositives,
      removed,
      recallChange: full.recall - without.recall,
    };
  });
}

export function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}
