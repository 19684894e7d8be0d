/** The spec's error types for a target that could not be analysed (errors[].type). */
export const FETCH_ERROR_TYPES = ['RESPONSE_NOT_OK', 'NO_RESPONSE', 'NO_HTML_DOCUMENT'] as const;
export type FetchErrorType = (typeof FETCH_ERROR_TYPES)[number];

/**
 * Why a page could not be fetched. Not an AppError: it is a fact about the target site that ends
 * up inside a successful API response or callback ({type, message}), not a failure of the request.
 */
export class FetchError extends Error {
  constructor(
    readonly type: FetchErrorType,
    message: string,
    /** Final HTTP status when the target answered (RESPONSE_NOT_OK, NO_HTML_DOCUMENT). */
    readonly status?: number,
    /** 429/503: how long the host asked us to wait (its Retry-After, or a default), in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'FetchError';
  }

  toJSON(): { type: FetchErrorType; message: string } {
    return { type: this.type, message: this.message };
  }
}

export function isFetchError(value: unknown): value is FetchError {
  return value instanceof FetchError;
}
