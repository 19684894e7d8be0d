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

/** Retrying cannot help (bad payload, refused target): the job goes to dead at once. */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}
