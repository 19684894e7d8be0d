import type { ErrorCode } from './app-error';

/** The one place where error codes become HTTP statuses (the spec: 400, 403, 404, 405, 429, 5xx). */
const STATUS_BY_CODE: Record<ErrorCode, number> = {
  UNAUTHENTICATED: 403,
  FORBIDDEN: 403,
  PLAN_REQUIRED: 403,
  INSUFFICIENT_CREDITS: 403,
  PAYMENT_DECLINED: 402,
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 429,
  BAD_REQUEST: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  TARGET_FORBIDDEN: 400,
  UPSTREAM_FAILED: 502,
  INTERNAL: 500,
};

export function httpStatusOf(code: ErrorCode): number {
  return STATUS_BY_CODE[code] ?? 500;
}
