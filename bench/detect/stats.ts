/** Small statistics and measuring helpers of the detection benchmark. */
import { availableParallelism, loadavg } from 'node:os';

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export function p95(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)];
}

/** CPU milliseconds (user + system, all threads of the process: GC helpers included) since `start`. */
export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** Wall and CPU time of one call. CPU time is what load on the machine distorts least. */
export async function measure<T>(run: () => T | Promise<T>): Promise<[Sample, T]> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = await run();
  const wallMs = performance.now() - start;
  return [{ wallMs, cpuMs: cpuMsSince(cpu) }, result];
}

export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

export function loadAverage(): string {
  return `${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')} (1/5/15 min) on ${availableParallelism()} cores`;
}
