import type { DetectionEngine } from '../../detection';
import { diffPacks, type PackDiff } from '../../detection/pack-diff';
import type { RawPack } from '../../detection/raw-pack';
import type { Database } from '../../storage/database';
import { SiteIndexRepository } from '../../storage/site-index.repository';
import type { PageSampleReader } from '../analysis/page-samples';
import {
  countOnSamples,
  flagTrendBreaks,
  TREND_BREAK_DEFAULTS,
  type TrendBreakOptions,
  type TrendFlag,
} from './trend-breaks';

/** One set of fingerprints to compare: the data and the engine compiled from it. */
export interface FingerprintSet {
  raw: RawPack;
  engine: DetectionEngine;
}

/** A technology a change touches, and how many stored sites have it (site_technologies rows). */
export interface TechnologyImpact {
  name: string;
  slug: string;
  storedSites: number;
}

export interface FingerprintsDiffReport {
  current: { version: string; technologies: number };
  candidate: { version: string; technologies: number };
  added: TechnologyImpact[];
  removed: TechnologyImpact[];
  changed: (TechnologyImpact & { fields: string[] })[];
  categories: PackDiff['categories'];
  /** What the samples say: how many were re-run, and the technologies whose trend would break. */
  samples: { read: number; failed: number; options: TrendBreakOptions; flags: TrendFlag[] };
}

/**
 * What a candidate set of fingerprints would change: technologies added, removed and changed (with
 * the stored sites each touches), and the trend breaks the stored page samples show. Where the two
 * sets come from (a file, the active packs) is the caller's business.
 */
export class FingerprintsDiffService {
  private readonly index: SiteIndexRepository;

  constructor(
    db: Database,
    private readonly samples: PageSampleReader,
  ) {
    this.index = new SiteIndexRepository(db);
  }

  async diff(
    current: FingerprintSet,
    candidate: FingerprintSet,
    options: TrendBreakOptions = TREND_BREAK_DEFAULTS,
  ): Promise<FingerprintsDiffReport> {
    const diff = diffPacks(current.raw, candidate.raw);
    const slugIn = (set: FingerprintSet, name: string) =>
      set.engine.fingerprints.technologyByName(name)?.slug ?? name;
    const added = diff.added.map((name) => ({ name, slug: slugIn(candidate, name) }));
    const removed = diff.removed.map((name) => ({ name, slug: slugIn(current, name) }));
    const changed = diff.changed.map((c) => ({ ...c, slug: slugIn(current, c.name) }));
    const stored = await this.index.sitesPerTechnology([
      ...new Set([...added, ...removed, ...changed].map((t) => t.slug)),
    ]);
    const impact = <T extends { slug: string }>(t: T) => ({ ...t, storedSites: stored.get(t.slug) ?? 0 });
    const counts = await countOnSamples(current.engine, candidate.engine, this.samples);
    return {
      current: {
        version: current.engine.version,
        technologies: Object.keys(current.raw.technologies).length,
      },
      candidate: {
        version: candidate.engine.version,
        technologies: Object.keys(candidate.raw.technologies).length,
      },
      added: added.map(impact),
      removed: removed.map(impact),
      changed: changed.map((c) => {
        const { name, slug, fields, storedSites } = impact(c);
        return { name, slug, storedSites, fields };
      }),
      categories: diff.categories,
      samples: {
        read: counts.samples,
        failed: counts.failed,
        options,
        flags: flagTrendBreaks(counts.before, counts.after, options, counts.names),
      },
    };
  }
}
