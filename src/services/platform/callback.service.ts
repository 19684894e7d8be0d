import { EntityManager } from 'typeorm';
import { CallbackRepository } from '../../storage/callback.repository';
import { Database } from '../../storage/database';
import type { CallbackDeliveryEntity } from '../../storage/entities/callback-delivery.entity';
import { ConflictError, NotFoundError, ValidationError } from '../../errors';
import { assertPublicUrl, HostLookup, parseOutboundUrl } from '../../fetch/private-address-guard';
import { attemptsToSpan, BackoffPolicy, backoffDelayMs } from '../../jobs/backoff';
import { JobKinds } from '../../jobs/job-kinds';
import { JobQueue } from '../../jobs/job-queue';
import { timeOrderedUuid } from './time-ordered-id';
import type { SecretColumn } from '../../storage/secret.repository';
import type { SecretVault } from './secret-vault';

export interface CallbackServiceOptions {
  /** Keep retrying a failing callback for at least this long (CALLBACK_RETRY_HOURS). */
  retryWindowMs: number;
  /** Waits between attempts: doubling from baseMs up to capMs, never shorter (jitter only adds). */
  retry?: BackoffPolicy;
  /** Accept private, loopback and metadata callback URLs (ALLOW_PRIVATE_TARGETS). */
  allowPrivateTargets: boolean;
  /** ALLOWED_PRIVATE_RANGES. */
  allowedPrivateRanges?: readonly string[];
  lookup?: HostLookup;
  random?: () => number;
  /** Opens signing secrets stored encrypted under SECRETS_KEY. */
  secrets?: SecretVault;
  /** The clock of attempts (signature timestamps, the end of a replaced secret's grace). */
  now?: () => Date;
}

export interface ScheduleCallbackInput {
  accountId: number;
  url: string;
  /** Event name sent in the event header, e.g. `list.ready`. */
  event: string;
  /** The JSON body; serialised once, here, so the signed text and the sent text are the same. */
  payload: unknown;
}

export interface CallbackDeliveryPage {
  deliveries: CallbackDeliveryEntity[];
  /** Delivery id to pass as `before` for the next (older) page, or null at the end. */
  nextBefore: string | null;
}

/** What the delivery worker needs for one attempt. */
export interface CallbackAttempt {
  delivery: CallbackDeliveryEntity;
  /** The account's signing secret, or null when it has none (the callback goes unsigned). */
  secret: string | null;
  /** The secret it replaced, while that one's grace period lasts (it signs too); else null. */
  previousSecret: string | null;
  /** When this attempt is made: the Standard Webhooks timestamp. */
  attemptedAt: Date;
}

export const MAX_CALLBACK_URL_LENGTH = 2048;
export const DEFAULT_CALLBACK_RETRY: BackoffPolicy = { baseMs: 60_000, capMs: 3 * 3_600_000 };
const MAX_EVENT_LENGTH = 100;
const MAX_ERROR_LENGTH = 1000;

/**
 * Signed HTTP callbacks with a delivery log. A callback is scheduled in the caller's transaction
 * (the event and its delivery commit together) and delivered at least once by the
 * `callback.deliver` job, which retries on any non-2xx answer for at least the retry window.
 */
export class CallbackService {
  /** Attempts per delivery: enough that the waits between them span the retry window. */
  readonly maxAttempts: number;
  private readonly retry: BackoffPolicy;
  private readonly random: () => number;
  private readonly now: () => Date;
  private readonly deliveries: CallbackRepository;

  constructor(
    private readonly db: Database,
    private readonly queue: JobQueue,
    private readonly options: CallbackServiceOptions,
  ) {
    this.deliveries = new CallbackRepository(db);
    this.retry = options.retry ?? DEFAULT_CALLBACK_RETRY;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? (() => new Date());
    this.maxAttempts = attemptsToSpan(this.retry, options.retryWindowMs);
  }

  /**
   * The full check of a callback URL for an endpoint accepting one, before any transaction:
   * http(s), no credentials, at most 2048 characters, and a public address unless private targets
   * are allowed. ValidationError or TargetForbiddenError naming `parameter`. The delivery checks the
   * address it actually connects to again, so a DNS change later gains nothing.
   */
  async validateUrl(url: string, parameter = 'callback_url'): Promise<string> {
    this.checkUrlForm(url, parameter);
    await assertPublicUrl(
      url,
      {
        allowPrivateTargets: this.options.allowPrivateTargets,
        allowedPrivateRanges: this.options.allowedPrivateRanges,
        lookup: this.options.lookup,
      },
      parameter,
    );
    return url;
  }

  /** Records a callback and enqueues its delivery, both in the caller's transaction. */
  async schedule(m: EntityManager, input: ScheduleCallbackInput): Promise<CallbackDeliveryEntity> {
    this.checkUrlForm(input.url, 'callback_url');
    if (!input.event || input.event.length > MAX_EVENT_LENGTH) {
      throw new ValidationError('event', `event must be 1 to ${MAX_EVENT_LENGTH} characters`);
    }
    const body = JSON.stringify(input.payload ?? null);
    const now = new Date();
    const delivery = await this.deliveries.insert(m, {
      id: timeOrderedUuid(),
      accountId: input.accountId,
      url: input.url,
      event: input.event,
      body,
      status: 'pending',
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      createdAt: now,
      deliveredAt: null,
      nextAttemptAt: now,
    });
    await this.queue.enqueue(
      m,
      JobKinds.callbackDelivery,
      { deliveryId: delivery.id },
      { uniqueKey: jobKeyOf(delivery.id), maxAttempts: this.maxAttempts },
    );
    return delivery;
  }

  /** The account's delivery log, newest first. */
  async list(
    accountId: number,
    page: { limit?: number; before?: string } = {},
  ): Promise<CallbackDeliveryPage> {
    const limit = Math.min(Math.max(page.limit ?? 20, 1), 100);
    const cursor = page.before !== undefined ? await this.get(accountId, page.before) : undefined;
    const rows = await this.deliveries.page(accountId, limit + 1, cursor);
    const deliveries = rows.slice(0, limit);
    return { deliveries, nextBefore: rows.length > limit ? deliveries[deliveries.length - 1].id : null };
  }

  async get(accountId: number, deliveryId: string): Promise<CallbackDeliveryEntity> {
    const delivery = await this.deliveries.get(deliveryId, accountId);
    if (!delivery) throw new NotFoundError(`Callback delivery ${deliveryId} not found`);
    return delivery;
  }

  /**
   * Sends a delivery again now, whatever its state: a pending one skips its wait, a failed or
   * delivered one starts a fresh retry schedule. ConflictError while an attempt is in flight.
   */
  async redeliver(accountId: number, deliveryId: string): Promise<CallbackDeliveryEntity> {
    await this.db.transaction(async (m) => {
      const now = new Date();
      const updated = await this.deliveries.markPending(m, accountId, deliveryId, now);
      if (!updated) throw new NotFoundError(`Callback delivery ${deliveryId} not found`);
      const job = await this.queue.findByUniqueKey(jobKeyOf(deliveryId), m);
      if (job) {
        await this.queue.retry(job.id, m).catch((error: unknown) => {
          throw error instanceof ConflictError
            ? new ConflictError(
                `Callback delivery ${deliveryId} is being attempted right now; try again shortly`,
              )
            : error;
        });
      } else {
        await this.queue.enqueue(
          m,
          JobKinds.callbackDelivery,
          { deliveryId },
          { uniqueKey: jobKeyOf(deliveryId), maxAttempts: this.maxAttempts },
        );
      }
    });
    return this.get(accountId, deliveryId);
  }

  /** The delivery and its account's secret, or null when it no longer needs sending. */
  async startAttempt(deliveryId: string): Promise<CallbackAttempt | null> {
    const delivery = await this.deliveries.get(deliveryId);
    // Delivered already: an earlier run got through but its job was not marked done (at least once).
    if (!delivery || delivery.status === 'delivered') return null;
    const stored = await this.deliveries.storedSigningSecrets(delivery.accountId);
    const open = (value: string | null, column: SecretColumn) =>
      this.options.secrets
        ? this.options.secrets.openSigningSecret(delivery.accountId, value, column)
        : value;
    const attemptedAt = this.now();
    const inGrace = stored.previousUntil !== null && stored.previousUntil.getTime() > attemptedAt.getTime();
    return {
      delivery,
      secret: open(stored.current, 'signing_secret'),
      previousSecret: inGrace ? open(stored.previous, 'previous_signing_secret') : null,
      attemptedAt,
    };
  }

  async recordDelivered(deliveryId: string, statusCode: number): Promise<void> {
    await this.deliveries.recordDelivered(deliveryId, statusCode, new Date());
  }

  /**
   * Logs a failed attempt: still pending with the time of the next attempt, or failed for good
   * when `retryDelayMs` is null (the schedule is used up, or retrying cannot help).
   */
  async recordFailed(
    deliveryId: string,
    failure: { statusCode: number | null; error: string; retryDelayMs: number | null },
  ): Promise<void> {
    const now = new Date();
    await this.deliveries.recordFailed(deliveryId, {
      statusCode: failure.statusCode,
      error: failure.error.slice(0, MAX_ERROR_LENGTH),
      nextAttemptAt: failure.retryDelayMs === null ? null : new Date(now.getTime() + failure.retryDelayMs),
    });
  }

  /** The wait after failed attempt `attempt` (1-based), with jitter. */
  retryDelayMs(attempt: number): number {
    return backoffDelayMs(this.retry, attempt, this.random);
  }

  private checkUrlForm(url: string, parameter: string): void {
    if (typeof url !== 'string' || url.length > MAX_CALLBACK_URL_LENGTH) {
      throw new ValidationError(
        parameter,
        `${parameter} must be a URL of at most ${MAX_CALLBACK_URL_LENGTH} characters`,
      );
    }
    parseOutboundUrl(url, parameter);
  }
}

function jobKeyOf(deliveryId: string): string {
  return `callback:${deliveryId}`;
}
