/**
 * The one error hierarchy of the service. Services throw these; each transport maps them once
 * (GraphQL: extensions.code; REST: HTTP status + JSON body). Services never throw HTTP types.
 */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'PLAN_REQUIRED'
  | 'INSUFFICIENT_CREDITS'
  | 'PAYMENT_DECLINED'
  | 'RATE_LIMITED'
  | 'QUOTA_EXCEEDED'
  | 'BAD_REQUEST'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'TARGET_FORBIDDEN'
  | 'UPSTREAM_FAILED'
  | 'INTERNAL';

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra, safe-to-publish details (e.g. the parameter name). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The payment provider refused a charge (the order it was for stays unpaid). */
export class PaymentDeclinedError extends AppError {
  constructor(reason: string) {
    super('PAYMENT_DECLINED', `Payment declined: ${reason}`, { reason });
  }
}

/** Missing, unknown or revoked API key. */
export class AuthError extends AppError {
  constructor(message = 'Missing or invalid API key (x-api-key header)') {
    super('UNAUTHENTICATED', message);
  }
}

/** A valid request for something the caller may not have (e.g. a tampered or expired download link). */
export class ForbiddenError extends AppError {
  constructor(message: string) {
    super('FORBIDDEN', message);
  }
}

/** The feature needs a higher plan. */
export class PlanError extends AppError {
  constructor(feature: string, requiredPlan: string) {
    super('PLAN_REQUIRED', `${feature} requires the ${requiredPlan} plan`, { feature, requiredPlan });
  }
}

/** What the plan allows is used up (its monitors, the sites they watch): a larger plan allows more. */
export class PlanLimitError extends AppError {
  constructor(limit: string, max: number, plan: string, detail: string) {
    super('PLAN_REQUIRED', `The ${plan} plan allows ${max} ${limit}: ${detail}`, { limit, max, plan });
  }
}

export class InsufficientCreditsError extends AppError {
  constructor(needed: number, available: number) {
    super(
      'INSUFFICIENT_CREDITS',
      `Insufficient credits: this request costs ${needed} credit(s) and the balance is ${available}`,
      { needed, available },
    );
  }
}

export class RateLimitError extends AppError {
  constructor(
    message: string,
    /** Seconds until a retry can succeed (Retry-After). */
    readonly retryAfterSeconds: number,
  ) {
    super('RATE_LIMITED', message, { retryAfter: retryAfterSeconds });
  }
}

export class QuotaError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('QUOTA_EXCEEDED', message, { retryAfter: retryAfterSeconds });
  }
}

/** Invalid input; `parameter` names the offending parameter. */
export class ValidationError extends AppError {
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super('BAD_REQUEST', message.includes(parameter) ? message : `${parameter}: ${message}`, { parameter });
  }
}

/**
 * A request field that failed its request schema. The message is a template in which `{name}`
 * stands for the field as the caller's transport names it (REST's `min_age` is GraphQL's `minAge`):
 * each transport says it with its own name (`named`), and the field's key is the default.
 */
export class FieldError extends ValidationError {
  constructor(
    /** The field's key in the request schema (its name on GraphQL). */
    readonly field: string,
    /** The message, `{name}` standing for the field (a nested path keeps its suffix: `{name}[0].slug`). */
    readonly template: string,
  ) {
    super(field, template.split('{name}').join(field));
  }

  /** The same error, the field called `name` (the parameter's name on the caller's transport). */
  named(name: string): ValidationError {
    return name === this.field ? this : new ValidationError(name, this.template.split('{name}').join(name));
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(
    method: string,
    path: string,
    readonly allowed: string[],
  ) {
    super(
      'METHOD_NOT_ALLOWED',
      `Method ${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`,
      {
        allowed,
      },
    );
  }
}

/** A unique constraint was violated (translated from the driver's error, same on every dialect). */
export class ConflictError extends AppError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message: string) {
    super('PAYLOAD_TOO_LARGE', message);
  }
}

/** An outbound target (crawl URL, callback URL) is refused by the private-address guard. */
export class TargetForbiddenError extends AppError {
  constructor(message: string, parameter?: string) {
    super('TARGET_FORBIDDEN', message, parameter ? { parameter } : {});
  }
}
