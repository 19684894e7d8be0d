import { StageMeter } from '../../../src/platform/stage-meter';

describe('StageMeter', () => {
  it('returns what the work returns and counts each run of a stage', () => {
    const meter = new StageMeter();
    expect(meter.measure('parse', () => 42)).toBe(42);
    meter.measure('parse', () => undefined);
    meter.measure('detect', () => undefined);
    const { stages } = meter.snapshot();
    expect(stages.parse.runs).toBe(2);
    expect(stages.detect.runs).toBe(1);
    expect(stages.enrich).toEqual({ cpuMs: 0, runs: 0 });
  });

  it('accounts the CPU a stage spent, and a failed run too, rethrowing its error', () => {
    const meter = new StageMeter();
    let sum = 0;
    meter.measure('enrich', () => {
      for (let i = 0; i < 20_000_000; i++) sum += i % 7;
    });
    expect(() =>
      meter.measure('enrich', () => {
        throw new Error('bad page');
      }),
    ).toThrow('bad page');
    const snapshot = meter.snapshot();
    expect(sum).toBeGreaterThan(0);
    expect(snapshot.stages.enrich.runs).toBe(2);
    expect(snapshot.stages.enrich.cpuMs).toBeGreaterThan(0);
    expect(snapshot.processCpuMs).toBeGreaterThanOrEqual(snapshot.stages.enrich.cpuMs);
    expect(snapshot.rssMb).toBeGreaterThan(0);
  });

  it('times one run in sampleEvery and counts them all, estimating the stage from the timed ones', () => {
    const meter = new StageMeter(4);
    let sum = 0;
    const results: number[] = [];
    for (let run = 0; run < 8; run++)
      results.push(
        meter.measure('detect', () => {
          for (let i = 0; i < 2_000_000; i++) sum += i % 3;
          return run;
        }),
      );
    expect(results).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(sum).toBeGreaterThan(0);
    const { stages } = meter.snapshot();
    expect(stages.detect.runs).toBe(8);
    expect(stages.detect.cpuMs).toBeGreaterThan(0);
  });
});
