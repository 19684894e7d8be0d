import { parseRequest } from '../platform/request-schema';
import { DatasetQuoteRequest } from './datasets.contract';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { Config } from '../../platform/config';
import { Database } from '../../storage/database';
import { DatasetRepository } from '../../storage/dataset.repository';
import type { Fingerprints } from '../../detection';
import { fingerprintsOf, type EngineSource } from '../fingerprints/engine-source';
import { AccountEntity } from '../../storage/entities';
import { DatasetOrderEntity, type DatasetOrderStatus } from '../../storage/entities/dataset-order.entity';
import { LeadListEntity } from '../../storage/entities/lead-list.entity';
import { TOPICS, type EventBus } from '../../platform/event-bus';
import { ConflictError, ForbiddenError, NotFoundError, PaymentDeclinedError } from '../../errors';
import { JobKinds } from '../../jobs/job-kinds';
import { PermanentJobError } from '../../jobs/job-errors';
import type { JobQueue } from '../../jobs/job-queue';
import type { CallbackService } from '../platform/callback.service';
import type { Caller } from '../platform/caller';
import { datasetMail, type DatasetMailKind } from './dataset-mails';
import {
  ORDER_REF_PATTERN,
  toDatasetRequest,
  type DatasetQuery,
  type DatasetRequest,
} from './dataset-request';
import { insertCalculatingList, type LeadListService } from '../lists/lead-list.service';
import type { Mail } from '../platform/mailer';
import type { PaymentProvider } from './payment-provider';

/** The spec's dataset order, as callbacks, REST and GraphQL show it. */
export interface DatasetOrderView {
  orderRef: string;
  status: DatasetOrderStatus;
  description: string;
  amount: number;
  currency: string;
  records: { counts: Record<string, number>; subset: number | null };
  query: Omit<DatasetQuery, 'subset'>;
  dataset: { url: string | null };
}

/** What datasetOrderChanged subscribers receive. */
export interface DatasetOrderChangedEvent {
  accountId: number;
  order: DatasetOrderView;
}

export interface DatasetJobPayload {
  orderRef: string;
}

/**
 * Dataset orders: a quote (its websites computed as an internal lead list by a job, priced at
 * DATASET_PRICE_PER_RECORD per website, POSTed to callback_url), a confirmation (charged once
 * through the payment provider in the transaction that marks the order paid), the file (the lead
 * list's ZIP of CSV, built by a job, linked signed and expiring in the second callback) and the
 * emails of each step (jobs, so a relay that is down delays them and loses none).
 */
export class DatasetService {
  private readonly orderRows: DatasetRepository;
  private readonly fingerprintsNow: () => Fingerprints;

  /** The active set's fingerprints, read per call (they switch live). */
  private get fingerprints(): Fingerprints {
    return this.fingerprintsNow();
  }

  constructor(
    private readonly db: Database,
    private readonly queue: JobQueue,
    private readonly callbacks: CallbackService,
    private readonly lists: LeadListService,
    private readonly payments: PaymentProvider,
    private readonly events: EventBus,
    fingerprints: Fingerprints | EngineSource,
    private readonly config: Config,
  ) {
    this.orderRows = new DatasetRepository(db);
    this.fingerprintsNow = fingerprintsOf(fingerprints);
  }

  /**
   * `args`: the request as a transport received it, parsed here with DatasetQuoteRequest.
   * `origin`: the origin the request reached the service at, kept with the order for the download
   * link of its later callbacks, emails and events (see LeadListFiles.url).
   */
  async quote(caller: Caller, args: object, origin: string, now = new Date()): Promise<{ orderRef: string }> {
    if (caller.principal.isDemo)
      throw new ForbiddenError('Datasets are sold to subscriptions, not to the demo key');
    const request = toDatasetRequest(parseRequest(DatasetQuoteRequest, args), this.fingerprints);
    await this.callbacks.validateUrl(request.callbackUrl, 'callback_url');
    const orderRef = `ds_${randomBytes(12).toString('hex')}`;
    const listId = `lst_${randomBytes(12).toString('hex')}`;
    const accountId = caller.principal.accountId;
    await this.db.transaction(async (m) => {
      await insertCalculatingList(m, {
        id: listId,
        accountId,
        purpose: 'dataset',
        request: request.list,
        createdAt: now,
        origin: origin || null,
      });
      await this.orderRows.insert(m, {
        orderRef,
        accountId,
        listId,
        status: 'quoting',
        query: JSON.stringify(request.query),
        callbackUrl: request.callbackUrl,
        counts: null,
        records: 0,
        amount: '0.00',
        currency: this.config.DATASET_CURRENCY,
        error: null,
        createdAt: now,
        quotedAt: null,
        paidAt: null,
        completedAt: null,
        changedAt: now,
        origin: origin || null,
      });
      await this.queue.enqueue(m, JobKinds.datasetQuote, { orderRef } satisfies DatasetJobPayload, {
        uniqueKey: `dataset-quote:${orderRef}`,
      });
    });
    return { orderRef };
  }

  /** Confirms (buys) a quoted order. Idempotent: a paid or complete order answers paid, charged once. */
  async confirm(caller: Caller, orderRef: string): Promise<{ orderStatus: 'paid' }> {
    const order = await this.owned(caller.principal.accountId, orderRef);
    if (order.status === 'paid' || order.status === 'complete') return { orderStatus: 'paid' };
    if (order.status === 'quoting')
      throw new ConflictError(`Order ${orderRef} is still being quoted: confirm it after the quote callback`);
    if (order.status === 'failed') throw new ConflictError(`Order ${orderRef} failed and cannot be bought`);
    try {
      await this.db.transaction(async (m) => {
        // Only one confirmation moves new → paid; a concurrent one finds nothing to update.
        const moved = await this.orderRows.move(m, orderRef, 'new', {
          status: 'paid',
          paidAt: new Date(),
          changedAt: new Date(),
          error: null,
        });
        if (!moved) return;
        const charge = await this.payments.charge(m, {
          accountId: order.accountId,
          orderRef,
          amount: Number(order.amount).toFixed(2),
          currency: order.currency,
        });
        if (!charge.ok) throw new PaymentDeclinedError(charge.reason);
        await this.queue.enqueue(m, JobKinds.datasetBuild, { orderRef } satisfies DatasetJobPayload, {
          uniqueKey: `dataset-build:${orderRef}`,
        });
        await this.mail(m, { ...order, status: 'paid' }, 'confirmation');
        await this.mail(m, { ...order, status: 'paid' }, 'receipt', charge.chargeId);
      });
    } catch (error) {
      if (error instanceof PaymentDeclinedError)
        await this.orderRows.recordError(orderRef, error.message.slice(0, 500));
      throw error;
    }
    this.publish({ ...order, status: 'paid' });
    return { orderStatus: 'paid' };
  }

  /** `origin`: the origin the request reached the service at (the links start with it: LeadListFiles.url). */
  async orders(caller: Caller, origin: string): Promise<DatasetOrderView[]> {
    const orders = await this.orderRows.ofAccount(caller.principal.accountId);
    return orders.map((o) => this.view(o, origin));
  }

  async order(
    caller: Caller,
    orderRef: string,
    origin: string,
  ): Promise<DatasetOrderView & { error: string | null }> {
    const order = await this.owned(caller.principal.accountId, orderRef);
    return { ...this.view(order, origin), error: order.error };
  }

  /** The quote job: the websites as the order's lead list, the price, then the first callback. */
  async computeQuote(payload: DatasetJobPayload, attempt: number, maxAttempts: number): Promise<void> {
    const order = await this.orderRows.byRef(payload.orderRef);
    if (!order || order.status !== 'quoting') return;
    const list = await this.companion(order);
    const request = JSON.parse(list.request) as DatasetRequest['list'];
    try {
      const counts = await this.lists.calculator.calculate(list.id, request, new Date());
      const names: Record<string, number> = {};
      for (const tech of request.technologies)
        names[this.fingerprints.technologyBySlug(tech.slug)?.name ?? tech.slug] = counts.rows[tech.slug] ?? 0;
      const amount = (Math.round(counts.websites * this.config.DATASET_PRICE_PER_RECORD * 100) / 100).toFixed(
        2,
      );
      await this.move(order, 'quoting', 'new', {
        counts: JSON.stringify(names),
        records: counts.websites,
        amount,
        quotedAt: new Date(),
      });
    } catch (error) {
      if (attempt < maxAttempts) throw error;
      await this.move(order, 'quoting', 'failed', { error: String(error).slice(0, 500) });
      throw new PermanentJobError(String(error));
    }
  }

  /** The build job: the ZIP of CSV (the lead list's file writer), complete, the second callback. */
  async build(payload: DatasetJobPayload): Promise<void> {
    const order = await this.orderRows.byRef(payload.orderRef);
    if (!order || order.status !== 'paid') return;
    const list = await this.companion(order);
    await this.lists.files.write(list.id, JSON.parse(list.request) as DatasetRequest['list']);
    await this.move(order, 'paid', 'complete', { completedAt: new Date() }, async (m) => {
      await m.update(LeadListEntity, { id: list.id }, { status: 'Complete', completedAt: new Date() });
    });
  }

  /**
   * Moves an order from one status to the next with its callback (and, on completion, the invoice)
   * in the same transaction; a move another run made first is a no-op.
   */
  private async move(
    order: DatasetOrderEntity,
    from: DatasetOrderStatus,
    to: DatasetOrderStatus,
    changes: Partial<DatasetOrderEntity>,
    also?: (m: EntityManager) => Promise<void>,
  ): Promise<void> {
    const next = { ...order, ...changes, status: to, changedAt: new Date() } as DatasetOrderEntity;
    // One view for the callback, the invoice and the event: each view signs a fresh download link,
    // and two taken a second apart would carry different links (expiry and signature).
    const view = this.view(next);
    const moved = await this.db.transaction(async (m) => {
      const changed = await this.orderRows.move(m, order.orderRef, from, {
        ...changes,
        status: to,
        changedAt: next.changedAt,
      });
      if (!changed) return false;
      await also?.(m);
      await this.callbacks.schedule(m, {
        accountId: order.accountId,
        url: order.callbackUrl,
        event: `dataset.${to}`,
        payload: view,
      });
      if (to === 'complete') await this.mail(m, next, 'invoice', undefined, view);
      return true;
    });
    if (moved) this.publish(next, view);
  }

  private async mail(
    m: EntityManager,
    order: DatasetOrderEntity,
    kind: DatasetMailKind,
    chargeId?: string,
    view: DatasetOrderView = this.view(order),
  ): Promise<void> {
    const account = await m.findOne(AccountEntity, { where: { id: order.accountId } });
    if (!account) return;
    const mail: Mail = datasetMail(kind, account.email, view, chargeId);
    await this.queue.enqueue(m, JobKinds.emailSend, mail, { uniqueKey: `mail:${kind}:${order.orderRef}` });
  }

  private publish(order: DatasetOrderEntity, view: DatasetOrderView = this.view(order)): void {
    this.events.publish(TOPICS.datasetOrderChanged, {
      accountId: order.accountId,
      order: view,
    } satisfies DatasetOrderChangedEvent);
  }

  private async owned(accountId: number, orderRef: string): Promise<DatasetOrderEntity> {
    const order = ORDER_REF_PATTERN.test(orderRef) ? await this.orderRows.owned(accountId, orderRef) : null;
    if (!order) throw new NotFoundError(`No dataset order ${orderRef}`);
    return order;
  }

  private async companion(order: DatasetOrderEntity): Promise<LeadListEntity> {
    const list = await this.db.manager.findOne(LeadListEntity, { where: { id: order.listId } });
    if (!list) throw new PermanentJobError(`The websites of order ${order.orderRef} are gone`);
    return list;
  }

  /**
   * The published order. `origin`: where the download link starts (under PUBLIC_BASE_URL when set);
   * without a request at hand (callbacks, emails, events) the origin the order was quoted at.
   */
  view(order: DatasetOrderEntity, origin: string | null = order.origin): DatasetOrderView {
    const { subset, ...query } = JSON.parse(order.query) as DatasetQuery;
    const counts = order.counts ? (JSON.parse(order.counts) as Record<string, number>) : {};
    const amount = Number(order.amount);
    return {
      orderRef: order.orderRef,
      status: order.status,
      description: describe(query, subset, order.records),
      amount,
      currency: order.currency,
      records: { counts, subset },
      query,
      dataset: {
        url: order.status === 'complete' ? this.lists.files.url(order.listId, 'full.zip', origin) : null,
      },
    };
  }
}

/** "Websites using WordPress or Shopify, languages en, TLDs .com, top 100 by traffic: 42 records". */
function describe(query: Omit<DatasetQuery, 'subset'>, subset: number | null, records: number): string {
  const parts = [`Websites using ${query.technologies.join(' or ')}`];
  const join = query.matchLangTld ? ' and ' : ' or ';
  const where = [
    query.languages.length ? `language ${query.languages.join('/')}` : '',
    query.tlds.length ? `TLD ${query.tlds.join('/')}` : '',
  ].filter(Boolean);
  if (where.length) parts.push(`with ${where.join(join)}`);
  if (subset !== null) parts.push(`the ${subset} most trafficked per technology`);
  return `${parts.join(', ')}: ${records} record${records === 1 ? '' : 's'}`;
}
