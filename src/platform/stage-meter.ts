/** The synchronous sections of an analysis whose CPU time is accounted separately. */
export const METERED_STAGES = ['parse', 'detect', 'enrich'] as const;
export type MeteredStage = (typeof METERED_STAGES)[number];

/** CPU so far of each stage and of the whole process, in ms, and how many times each stage ran. */
export interface StageCpuSnapshot {
  stages: Record<MeteredStage, { cpuMs: number; runs: number }>;
  /** The whole process (every thread), so that what the stages leave is fetch, store and the rest. */
  processCpuMs: number;
  rssMb: number;
}

/**
 * Where a worker's CPU goes, by stage of the analysis (issue 35): the parse of a fetched page, its
 * detection and the site's enrichment are synchronous sections, so the CPU the process spent
 * between their start and end is theirs (plus the little other threads, GC helpers mostly, did
 * meanwhile). Fetch and store are asynchronous, interleaved with other jobs: they are what the
 * process spent beyond the metered stages. process.cpuUsage() is a getrusage() call, which summed
 * to 2 % of a loaded worker's CPU when every section was timed: one run in `sampleEvery` is timed
 * and a stage's CPU is its sampled runs' average times all its runs (thousands of runs an hour).
 */
export class StageMeter {
  private readonly totals = Object.fromEntries(
    METERED_STAGES.map((stage) => [stage, { cpuUs: 0, runs: 0, timed: 0 }]),
  ) as Record<MeteredStage, { cpuUs: number; runs: number; timed: number }>;

  constructor(private readonly sampleEvery = 8) {}

  measure<T>(stage: MeteredStage, work: () => T): T {
    const total = this.totals[stage];
    if (total.runs++ % this.sampleEvery !== 0) return work();
    const start = process.cpuUsage();
    try {
      return work();
    } finally {
      const used = process.cpuUsage(start);
      total.cpuUs += used.user + used.system;
      total.timed++;
    }
  }

  snapshot(): StageCpuSnapshot {
    const own = process.cpuUsage();
    const stages = Object.fromEntries(
      METERED_STAGES.map((stage) => [
        stage,
        {
          cpuMs: Math.round(estimatedCpuUs(this.totals[stage]) / 100) / 10,
          runs: this.totals[stage].runs,
        },
      ]),
    ) as StageCpuSnapshot['stages'];
    return {
      stages,
      processCpuMs: Math.round((own.user + own.system) / 1000),
      rssMb: Math.round(process.memoryUsage.rss() / 1_048_576),
    };
  }
}

function estimatedCpuUs(total: { cpuUs: number; runs: number; timed: number }): number {
  return total.timed === 0 ? 0 : (total.cpuUs / total.timed) * total.runs;
}

/** The process's one meter: the analysis code measures into it, the worker reports it (STAGE_CPU_LOG_SECONDS). */
export const stageMeter = new StageMeter();
