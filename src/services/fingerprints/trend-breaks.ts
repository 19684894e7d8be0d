import type { DetectionEngine } from '../../detection';
import type { PageSampleReader } from '../analysis/page-samples';

/** When a technology's count on the samples counts as a break. */
export interface TrendBreakOptions {
  /** The largest change kept quiet, as a share of the count before (0.2: 20%); more is flagged. */
  share: number;
  /** A technology found on fewer samples than this, before and after alike, is never flagged. */
  minSites: number;
}

export const TREND_BREAK_DEFAULTS: TrendBreakOptions = { share: 0.2, minSites: 3 };

/** A technology whose detections on the samples would fall or rise by more than the share. */
export interface TrendFlag {
  slug: string;
  /** The technology's name (the candidate's when it has it, else the current one's). */
  name: string;
  /** Samples it is detected on by the current fingerprints. */
  before: number;
  /** Samples it is detected on by the candidate. */
  after: number;
  direction: 'falls' | 'rises';
  /** (after - before) / before; null when it rises from zero. */
  change: number | null;
}

/** Detections per technology on the samples, by each engine. */
export interface SampleCounts {
  /** Samples read. */
  samples: number;
  /** Samples an engine threw on (left out of the counts of both). */
  failed: number;
  /** slug → samples the current engine detects it on. */
  before: Map<string, number>;
  /** slug → samples the candidate detects it on. */
  after: Map<string, number>;
  /** slug → name, from both engines' results. */
  names: Map<string, string>;
}

/** Samples read and run per batch: a batch of bounded pages stays a few megabytes. */
export const SAMPLE_BATCH = 50;

/**
 * Runs both engines on every stored sample, a batch at a time (never every sample in memory), and
 * yields to the event loop between batches so a process that also serves requests keeps serving.
 * A technology counts once per sample, implied ones included (the index stores those too).
 */
export async function countOnSamples(
  current: DetectionEngine,
  candidate: DetectionEngine,
  read: PageSampleReader,
  batchSize = SAMPLE_BATCH,
): Promise<SampleCounts> {
  const counts: SampleCounts = {
    samples: 0,
    failed: 0,
    before: new Map(),
    after: new Map(),
    names: new Map(),
  };
  const add = (into: Map<string, number>, technologies: readonly { slug: string; name: string }[]) => {
    for (const t of technologies) {
      into.set(t.slug, (into.get(t.slug) ?? 0) + 1);
      counts.names.set(t.slug, t.name);
    }
  };
  for await (const batch of read(batchSize)) {
    for (const sample of batch) {
      counts.samples++;
      let before, after;
      try {
        before = current.analyze(sample.input).technologies;
        after = candidate.analyze(sample.input).technologies;
      } catch {
        counts.failed++;
        continue;
      }
      add(counts.before, before);
      add(counts.after, after);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  return counts;
}

/**
 * The technologies whose count would change by more than `share` of the count before, among those
 * counted at least `minSites` times before or after: a rise from zero is always more than any share,
 * and a change of exactly `share` is not flagged. Sorted by the size of the change, largest first.
 * Pure: a live switch logs the same flags from the counts it took.
 */
export function flagTrendBreaks(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  options: TrendBreakOptions = TREND_BREAK_DEFAULTS,
  names: ReadonlyMap<string, string> = new Map(),
): TrendFlag[] {
  const flags: TrendFlag[] = [];
  for (const slug of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(slug) ?? 0;
    const a = after.get(slug) ?? 0;
    if (a === b || Math.max(a, b) < options.minSites) continue;
    const change = b === 0 ? null : (a - b) / b;
    if (change !== null && Math.abs(change) <= options.share) continue;
    flags.push({
      slug,
      name: names.get(slug) ?? slug,
      before: b,
      after: a,
      direction: a < b ? 'falls' : 'rises',
      change,
    });
  }
  return flags.sort(
    (x, y) =>
      Math.abs(y.after - y.before) - Math.abs(x.after - x.before) ||
      (x.slug < y.slug ? -1 : x.slug > y.slug ? 1 : 0),
  );
}
