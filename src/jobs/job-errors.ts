/**
 * How a handler steers what happens after it fails. Any other error is retried with the queue's
 * exponential backoff until the job's attempts are used up.
 */

/** Retry after exactly `delayMs` (the handler keeps its own schedule, e.g. callbacks). */
export class RetryJobError extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
    this.name = 'RetryJobError';
  }
}

/**
 * The job cannot run before `runAt` for a reason outside it (the host it crawls asked every worker
 * to wait, Retry-After): it is queued again for that time without using an attempt, so a wait is
 * neither a failure nor a reason for a worker to claim the job again and again meanwhile.
 */
export class DeferJobError extends Error {
  constructor(
    message: string,
    readonly runAt: Date,
  ) {
    super(message);
    this.name = 'DeferJobError';
  }
}

/** Retrying cannot help (bad payload, refused target): the job goes to dead at once. */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}
