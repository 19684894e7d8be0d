import type { Logger } from '../platform/logger';

/** What a handler knows about the run it is part of. */
export interface JobContext {
  jobId: number;
  kind: string;
  /** 1 for the first run; a run after a crash or a failure counts up. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the worker shuts down or loses the lease: stop soon, the job will run again. */
  signal: AbortSignal;
  logger: Logger;
}

/**
 * Handles one job. It must be idempotent: a job runs again when its worker dies or loses its lease
 * after the work was done but before the job was marked succeeded. Throwing retries the job
 * (see job-errors.ts for how to steer that).
 */
export type JobHandler<P = unknown> = (payload: P, context: JobContext) => Promise<void>;

/** Job kind → its one handler. */
export class JobHandlerRegistry {
  private readonly handlers = new Map<string, JobHandler>();

  register<P>(kind: string, handler: JobHandler<P>): this {
    if (this.handlers.has(kind)) throw new Error(`A handler for job kind "${kind}" is already registered`);
    this.handlers.set(kind, handler as JobHandler);
    return this;
  }

  get(kind: string): JobHandler | undefined {
    return this.handlers.get(kind);
  }

  kinds(): string[] {
    return [...this.handlers.keys()];
  }

  /** Throws unless the registered kinds are exactly `expected`: no job without a handler, no stray handler. */
  assertExactly(expected: readonly string[]): void {
    const missing = expected.filter((kind) => !this.handlers.has(kind));
    const unknown = this.kinds().filter((kind) => !expected.includes(kind));
    const problems = [
      ...(missing.length ? [`no handler for job kind(s): ${missing.join(', ')}`] : []),
      ...(unknown.length ? [`handler(s) for undeclared job kind(s): ${unknown.join(', ')}`] : []),
    ];
    if (problems.length) throw new Error(`Job handlers do not match the job kinds: ${problems.join('; ')}`);
  }
}
