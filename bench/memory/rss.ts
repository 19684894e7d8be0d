import { readFileSync } from 'node:fs';

/** A process's resident set size in MB, read from outside (/proc/PID/status VmRSS); null once it is gone. */
export function rssMbOf(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Samples a process's RSS once a second from outside, as an operator's monitoring would: `at(s)` is
 * the sample nearest `s` seconds after the start, `maxSince(s)` the highest from then on.
 */
export class RssSampler {
  private readonly samples: { at: number; mb: number }[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly started = Date.now();

  constructor(private readonly pid: number | undefined) {
    this.sample();
    this.timer = setInterval(() => this.sample(), 1000);
  }

  private sample(): void {
    const mb = rssMbOf(this.pid);
    if (mb !== null) this.samples.push({ at: (Date.now() - this.started) / 1000, mb });
  }

  get first(): number {
    return this.samples[0]?.mb ?? NaN;
  }

  get last(): number {
    return this.samples.at(-1)?.mb ?? NaN;
  }

  at(seconds: number): number {
    let best = this.samples[0];
    for (const s of this.samples) if (Math.abs(s.at - seconds) < Math.abs(best.at - seconds)) best = s;
    return best?.mb ?? NaN;
  }

  maxSince(seconds = 0): number {
    return Math.max(...this.samples.filter((s) => s.at >= seconds).map((s) => s.mb));
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }
}
