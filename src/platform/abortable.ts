/**
 * Settles with `promise`, or rejects with the signal's reason as soon as the signal aborts.
 * Used where the underlying operation cannot be cancelled on its own: a query on a shared
 * node:dns Resolver (the verification's time bound), a host pacer's queued turn (the request
 * stops waiting; the turn is skipped when it comes).
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
