import { parseRequest } from '../platform/request-schema';
import { ListCreateRequest } from './lists.contract';
import { randomBytes } from 'node:crypto';
import { In, IsNull, type EntityManager } from 'typeorm';
import type { Config } from '../../platform/config';
import { Database } from '../../storage/database';
import type { Fingerprints } from '../../detection';
import { fingerprintsOf, type EngineSource } from '../fingerprints/engine-source';
import { LeadListEntity, LeadListSiteEntity, type ListStatus } from '../../storage/entities/lead-list.entity';
import { LeadListRepository } from '../../storage/lead-list.repository';
import type { AffectedVersions } from '../../storage/lead-list-calculator.repository';
import { SiteIndexRepository } from '../../storage/site-index.repository';
import { TOPICS, type EventBus } from '../../platform/event-bus';
import { ConflictError, NotFoundError, RateLimitError, ValidationError } from '../../errors';
import { JobKinds } from '../../jobs/job-kinds';
import { PermanentJobError } from '../../jobs/job-errors';
import type { JobQueue } from '../../jobs/job-queue';
import { requireFeature } from '../platform/access.service';
import type { PlanCatalog } from '../../plans/plan-catalog';
import type { CallbackService } from '../platform/callback.service';
import type { Caller } from '../platform/caller';
import type { CreditService } from '../platform/credit.service';
import { LeadListCalculator, type ListCounts } from './lead-list-calculator';
import { LeadListFiles } from './lead-list-files';
import {
  CATEGORY_TOP,
  LIST_ID_PATTERN,
  toListRequest,
  type AffectedVersionSource,
  type ListRequest,
  type ListTechnology,
} from './lead-list-request';

/** excludeListId: at most this many lists (the named one and those it excluded, recursively)… */
export const MAX_EXCLUDED_LISTS = 10;
/** …holding at most this many websites together. */
export const MAX_EXCLUDED_WEBSITES = 500_000;
/** How long a finished list.files job is left alone before a download of its missing file restarts it. */
const FULL_FILE_RETRY_AFTER_MS = 60_000;

export interface ListTechnologyView {
  slug: string;
  name: string;
  categories: { slug: string; name: string }[];
  operator: string;
  version: string | null;
}

export interface ListSummaryView {
  id: string;
  createdAt: number;
  status: ListStatus;
  totalCredits: number;
  technologies: ListTechnologyView[];
  keywords: string[];
  /** Rows of every technology file together. */
  rows: number;
}

/** The full record (GraphQL's LeadListType; the REST facade turns the count lists into objects). */
export interface ListView
  extends
    Omit<ListSummaryView, 'rows'>,
    Pick<
      ListRequest,
      | 'languages'
      | 'countries'
      | 'industries'
      | 'companySizes'
      | 'tlds'
      | 'matchCountryLanguage'
      | 'rootPath'
      | 'subset'
      | 'subsetSlice'
      | 'minAge'
      | 'maxAge'
      | 'fromDate'
      | 'excludeNoTraffic'
      | 'excludeMultilingual'
      | 'excludeListId'
      | 'callbackUrl'
    > {
  matchTechnologies: string;
  subdomains: string;
  requiredSets: string[];
  sets: string[];
  format: string;
  url: string | null;
  sampleUrl: string | null;
  rows: { slug: string; rows: number }[];
  setRows: { set: string; rows: number }[];
  websites: number;
  baseListId: string | null;
  baseList: ListSummaryView | null;
  error: string | null;
  /** Extension: only on lists made with a vulnerabilities filter. */
  vulnerabilities?: string[];
  possiblyAffected?: boolean;
}

/** What listReady subscribers and the callback receive. */
export interface ListReadyEvent {
  accountId: number;
  id: string;
  status: ListStatus;
  rows: { slug: string; rows: number }[];
  setRows: { set: string; rows: number }[];
  totalCredits: number;
  sampleUrl: string | null;
}

export interface ListJobPayload {
  listId: string;
}

function unix(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

function startOfUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

function countsOf(json: string | null): Record<string, number> {
  return json ? (JSON.parse(json) as Record<string, number>) : {};
}

/** A new list row, Calculating (a customer's list, or the websites of a dataset order). */
export async function insertCalculatingList(
  m: EntityManager,
  list: Pick<LeadListEntity, 'id' | 'accountId' | 'purpose' | 'createdAt' | 'origin'> & {
    request: ListRequest;
  },
): Promise<void> {
  await m.insert(LeadListEntity, {
    ...list,
    status: 'Calculating',
    request: JSON.stringify(list.request),
    rows: null,
    setRows: null,
    websites: 0,
    totalCredits: 0,
    error: null,
    readyAt: null,
    completedAt: null,
    deletedAt: null,
  });
}

/**
 * Lead lists (Business plan): create (validated, limited, enqueued with its calculation job in one
 * transaction), read, finalize (the exact price charged with its ledger row in one transaction),
 * delete (sites and files removed). The calculation itself runs in a worker: see calculate().
 */
export class LeadListService {
  readonly calculator: LeadListCalculator;
  readonly files: LeadListFiles;
  /** Lists whose end state this process already published (in-process or by the watcher). */
  private readonly published = new Set<string>();
  private readonly lists: LeadListRepository;
  private readonly index: SiteIndexRepository;
  private readonly fingerprintsNow: () => Fingerprints;

  /** The active set's fingerprints, read per call (they switch live). */
  private get fingerprints(): Fingerprints {
    return this.fingerprintsNow();
  }

  constructor(
    private readonly db: Database,
    private readonly queue: JobQueue,
    private readonly callbacks: CallbackService,
    private readonly credits: CreditService,
    private readonly events: EventBus,
    fingerprints: Fingerprints | EngineSource,
    private readonly config: Config,
    private readonly plans: PlanCatalog,
    private readonly affectedVersions?: AffectedVersionSource,
  ) {
    this.fingerprintsNow = fingerprintsOf(fingerprints);
    this.calculator = new LeadListCalculator(db);
    this.lists = new LeadListRepository(db);
    this.index = new SiteIndexRepository(db);
    this.files = new LeadListFiles(db, {
      dir: config.LISTS_DIR,
      secret: config.LISTS_URL_SECRET,
      ttlSeconds: config.LISTS_URL_TTL_SECONDS,
      sampleRows: config.LISTS_SAMPLE_ROWS,
      publicBaseUrl: config.PUBLIC_BASE_URL,
    });
  }

  /**
   * `args`: the request as a transport received it; parsed here, after the plan check, with
   * ListCreateRequest. `origin`: the origin the request reached the service at, kept with the list
   * for the links of its callback and events (see LeadListFiles.url).
   */
  async create(
    caller: Caller,
    args: object,
    origin: string,
    now = new Date(),
  ): Promise<{ id: string; status: ListStatus }> {
    requireFeature(caller.principal, 'lists', this.plans);
    const request = toListRequest(parseRequest(ListCreateRequest, args));
    const accountId = caller.principal.accountId;
    request.technologies.forEach((tech, i) => {
      if (!this.fingerprints.technologyBySlug(tech.slug))
        throw new ValidationError('technologies', `technologies[${i}].slug: unknown technology ${tech.slug}`);
    });
    request.technologies.push(...(await this.categoryTechnologies(request)));
    request.technologies.push(...(await this.vulnerableTechnologies(request)));
    if (request.callbackUrl) await this.callbacks.validateUrl(request.callbackUrl, 'callbackUrl');
    if (request.baseListId) await this.usableList(accountId, request.baseListId, 'baseListId');
    if (request.excludeListId)
      request.excludeListIds = await this.exclusions(accountId, request.excludeListId);

    const id = `lst_${randomBytes(12).toString('hex')}`;
    await this.db.transaction(async (m) => {
      const today = await this.lists.countCreatedSince(m, accountId, startOfUtcDay(now));
      if (today >= this.config.LISTS_DAILY_LIMIT) {
        const tomorrow = startOfUtcDay(now).getTime() + 86_400_000;
        throw new RateLimitError(
          `Lists: at most ${this.config.LISTS_DAILY_LIMIT} lists may be created per day (UTC)`,
          Math.max(1, Math.ceil((tomorrow - now.getTime()) / 1000)),
        );
      }
      const calculating = await m.count(LeadListEntity, {
        where: { accountId, status: 'Calculating', deletedAt: IsNull(), purpose: 'list' },
      });
      if (calculating >= this.config.LISTS_CONCURRENT_LIMIT)
        throw new RateLimitError(
          `Lists: at most ${this.config.LISTS_CONCURRENT_LIMIT} lists may be Calculating at once`,
          10,
        );
      await insertCalculatingList(m, {
        id,
        accountId,
        purpose: 'list',
        request,
        createdAt: now,
        origin: origin || null,
      });
      await this.queue.enqueue(m, JobKinds.leadList, { listId: id } satisfies ListJobPayload, {
        uniqueKey: `list:${id}`,
        maxAttempts: this.config.LISTS_JOB_ATTEMPTS,
      });
    });
    return { id, status: 'Calculating' };
  }

  async all(caller: Caller): Promise<ListSummaryView[]> {
    requireFeature(caller.principal, 'lists', this.plans);
    const lists = await this.db.manager.find(LeadListEntity, {
      where: { accountId: caller.principal.accountId, deletedAt: IsNull(), purpose: 'list' },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
    return lists.map((list) => this.summary(list));
  }

  /** `origin`: the origin the request reached the service at (the links start with it: LeadListFiles.url). */
  async get(caller: Caller, id: string, origin: string): Promise<ListView> {
    requireFeature(caller.principal, 'lists', this.plans);
    const list = await this.owned(caller.principal.accountId, id);
    const request = JSON.parse(list.request) as ListRequest;
    const base = request.baseListId
      ? await this.db.manager.findOne(LeadListEntity, {
          where: { id: request.baseListId, accountId: list.accountId },
        })
      : null;
    return this.view(list, base, origin);
  }

  async finalize(
    caller: Caller,
    id: string,
    spendCredits: number,
    origin: string,
  ): Promise<{ id: string; status: ListStatus; url: string }> {
    requireFeature(caller.principal, 'lists', this.plans);
    if (!Number.isSafeInteger(spendCredits) || spendCredits < 0)
      throw new ValidationError('spendCredits', 'spendCredits must be a whole number of credits');
    const accountId = caller.principal.accountId;
    const list = await this.owned(accountId, id);
    if (list.status === 'Complete') throw new ConflictError(`List ${id} is already Complete`);
    if (list.status !== 'Ready')
      throw new ConflictError(`List ${id} is ${list.status}: only a Ready list can be finalized`);
    if (spendCredits !== list.totalCredits)
      throw new ValidationError(
        'spendCredits',
        `spendCredits must equal the list's totalCredits (${list.totalCredits}), got ${spendCredits}`,
      );
    const remaining = await this.db.transaction(async (m) => {
      // Only one finalize wins; the charge and its ledger row commit with the status, or nothing does.
      const updated = await this.lists.markComplete(m, id, accountId);
      if (!updated)
        throw new ConflictError(`List ${id} changed meanwhile: only a Ready list can be finalized`);
      return this.credits.chargeWithin(m, caller, list.totalCredits, `POST /v2/lists/${id}`);
    });
    if (list.totalCredits > 0)
      this.credits.announce(accountId, remaining, -list.totalCredits, `POST /v2/lists/${id}`);
    return { id, status: 'Complete', url: this.files.url(id, 'full.zip', origin) };
  }

  async delete(caller: Caller, id: string): Promise<void> {
    requireFeature(caller.principal, 'lists', this.plans);
    const list = await this.owned(caller.principal.accountId, id);
    await this.db.transaction(async (m) => {
      await m.update(LeadListEntity, { id: list.id }, { deletedAt: new Date() });
      await m.delete(LeadListSiteEntity, { listId: list.id });
    });
    this.files.remove(list.id);
  }

  /** A download: the list when the link may fetch this file now, else null (the handler answers 403/404). */
  async downloadable(id: string, file: string): Promise<LeadListEntity | null> {
    if (!LIST_ID_PATTERN.test(id)) return null;
    const list = await this.db.manager.findOne(LeadListEntity, { where: { id, deletedAt: IsNull() } });
    if (!list) return null;
    if (file === 'full.zip') return list.status === 'Complete' ? list : null;
    return list.status === 'Ready' || list.status === 'Complete' ? list : null;
  }

  /**
   * The job: computes the list, writes its files, then Ready (or Insufficient: fewer websites than
   * LISTS_MIN_WEBSITES) with the callback scheduled in the same transaction. A run that throws is
   * retried; after the last attempt (or when a list it depends on was deleted) the list is Failed.
   */
  async calculate(
    payload: ListJobPayload,
    attempt: number,
    maxAttempts: number,
    now = new Date(),
  ): Promise<void> {
    const list = await this.db.manager.findOne(LeadListEntity, { where: { id: payload.listId } });
    if (!list || list.deletedAt || list.status !== 'Calculating') return;
    const request = JSON.parse(list.request) as ListRequest;
    try {
      for (const [field, ids] of [
        ['baseListId', request.baseListId ? [request.baseListId] : []],
        ['excludeListId', request.excludeListId ? [request.excludeListId] : []],
      ] as const) {
        if (ids.length === 0) continue;
        const alive = await this.db.manager.count(LeadListEntity, {
          where: { id: In(ids), deletedAt: IsNull() },
        });
        if (alive < ids.length) throw new PermanentJobError(`The list named by ${field} was deleted`);
      }
      const counts = await this.calculator.calculate(
        list.id,
        request,
        now,
        await this.affectedPairs(request),
      );
      const status: ListStatus = counts.websites < this.config.LISTS_MIN_WEBSITES ? 'Insufficient' : 'Ready';
      // Ready needs the rows, the counts and the sample file; the full file is written by the
      // list.files job enqueued with the Ready status (see writeFullFile).
      if (status === 'Ready') await this.files.writeFile(list.id, request, 'sample.zip');
      await this.finish(list, request, status, counts, null);
    } catch (error) {
      const permanent = error instanceof PermanentJobError;
      if (!permanent && attempt < maxAttempts) throw error;
      const message = error instanceof Error ? error.message : String(error);
      await this.finish(list, request, 'Failed', { rows: {}, setRows: {}, websites: 0 }, message);
      this.files.remove(list.id);
      throw permanent ? error : new PermanentJobError(message);
    }
  }

  /**
   * The list.files job, right after Ready: writes full.zip. Until it exists a download of full.zip
   * (of a Complete list) answers 503 with Retry-After. A list deleted meanwhile keeps no file.
   */
  async writeFullFile(payload: ListJobPayload): Promise<void> {
    const list = await this.db.manager.findOne(LeadListEntity, { where: { id: payload.listId } });
    if (!list || list.deletedAt || (list.status !== 'Ready' && list.status !== 'Complete')) return;
    if (this.files.exists(list.id, 'full.zip')) return;
    await this.files.writeFile(list.id, JSON.parse(list.request) as ListRequest, 'full.zip');
    const after = await this.db.manager.findOne(LeadListEntity, { where: { id: list.id } });
    if (!after || after.deletedAt) this.files.remove(list.id);
  }

  /**
   * Called when a Complete list's full.zip is asked for and missing: makes sure a list.files job
   * will write it. Usually the job queued with Ready is still at work; but one that died after its
   * retries (a full disk, say), or a file removed from LISTS_DIR, would otherwise leave a paid list
   * answering 503 for ever. Such a job starts over with fresh attempts, at most once a minute.
   */
  async ensureFullFile(list: LeadListEntity, now = new Date()): Promise<void> {
    const uniqueKey = `list-files:${list.id}`;
    try {
      await this.db.transaction(async (m) => {
        const job = await this.queue.findByUniqueKey(uniqueKey, m);
        if (!job) {
          await this.queue.enqueue(m, JobKinds.leadListFiles, { listId: list.id } satisfies ListJobPayload, {
            uniqueKey,
            maxAttempts: this.config.LISTS_JOB_ATTEMPTS,
          });
          return;
        }
        if (job.status === 'queued' || job.status === 'running') return;
        if (job.finishedAt && now.getTime() - job.finishedAt.getTime() < FULL_FILE_RETRY_AFTER_MS) return;
        await this.queue.retry(job.id, m);
      });
    } catch (error) {
      // Another download restarted it at the same moment: that is all this wanted.
      if (!(error instanceof ConflictError)) throw error;
    }
  }

  private async finish(
    list: LeadListEntity,
    request: ListRequest,
    status: ListStatus,
    counts: ListCounts,
    error: string | null,
  ): Promise<void> {
    // No request at hand (a worker): the links start with the origin the list was created at.
    const sampleUrl = status === 'Ready' ? this.files.url(list.id, 'sample.zip', list.origin) : null;
    const event: ListReadyEvent = {
      accountId: list.accountId,
      id: list.id,
      status,
      rows: Object.entries(counts.rows).map(([slug, rows]) => ({ slug, rows })),
      setRows: Object.entries(counts.setRows).map(([set, rows]) => ({ set, rows })),
      totalCredits: counts.websites,
      sampleUrl,
    };
    const changed = await this.db.transaction(async (m) => {
      const calculated = await this.lists.markCalculated(m, list.id, {
        status,
        rows: JSON.stringify(counts.rows),
        setRows: JSON.stringify(counts.setRows),
        websites: counts.websites,
        totalCredits: counts.websites,
        error: error?.slice(0, 500) ?? null,
      });
      if (!calculated) return false;
      if (status === 'Ready')
        await this.queue.enqueue(m, JobKinds.leadListFiles, { listId: list.id } satisfies ListJobPayload, {
          uniqueKey: `list-files:${list.id}`,
          maxAttempts: this.config.LISTS_JOB_ATTEMPTS,
        });
      if (request.callbackUrl) {
        const { accountId: _account, ...body } = event;
        await this.callbacks.schedule(m, {
          accountId: list.accountId,
          url: request.callbackUrl,
          event: 'list.ready',
          payload: { ...body, rows: counts.rows, setRows: counts.setRows },
        });
      }
      return true;
    });
    if (!changed) {
      // Deleted while calculating: leave nothing behind.
      await this.db.manager.delete(LeadListSiteEntity, { listId: list.id });
      this.files.remove(list.id);
      return;
    }
    this.publish(event);
  }

  private publish(event: ListReadyEvent): void {
    if (this.published.has(event.id)) return;
    if (this.published.size >= 10_000) this.published.clear();
    this.published.add(event.id);
    this.events.publish(TOPICS.listReady, event);
  }

  /**
   * listReady for lists calculated by another process (a separate worker): while this process has
   * listReady subscribers, every `intervalMs` it reads the lists that reached an end state since
   * the last look and publishes those it has not published itself. Returns the stop function.
   */
  watchEndStates(intervalMs: number): () => void {
    let since = new Date(Date.now() - 5_000);
    let running = false;
    const timer = setInterval(() => {
      if (running || this.events.listenerCount(TOPICS.listReady) === 0) return;
      running = true;
      const from = since;
      void this.lists
        .endStatesSince(from, 500)
        .then((lists) => {
          for (const list of lists) {
            if (list.readyAt && list.readyAt.getTime() - 5_000 > since.getTime())
              since = new Date(list.readyAt.getTime() - 5_000);
            if (list.status === 'Complete') continue;
            this.publish({
              accountId: list.accountId,
              id: list.id,
              status: list.status,
              rows: Object.entries(countsOf(list.rows)).map(([slug, rows]) => ({ slug, rows })),
              setRows: Object.entries(countsOf(list.setRows)).map(([set, rows]) => ({ set, rows })),
              totalCredits: list.totalCredits,
              sampleUrl: list.status === 'Ready' ? this.files.url(list.id, 'sample.zip', list.origin) : null,
            });
          }
        })
        .catch(() => undefined)
        .finally(() => (running = false));
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async owned(accountId: number, id: string): Promise<LeadListEntity> {
    const list = LIST_ID_PATTERN.test(id)
      ? await this.db.manager.findOne(LeadListEntity, {
          where: { id, accountId, deletedAt: IsNull(), purpose: 'list' },
        })
      : null;
    if (!list) throw new NotFoundError(`No list ${id}`);
    return list;
  }

  /** A list this account may build on: its own, not deleted, and calculated (Ready or Complete). */
  private async usableList(accountId: number, id: string, field: string): Promise<LeadListEntity> {
    const list = await this.db.manager.findOne(LeadListEntity, {
      where: { id, accountId, deletedAt: IsNull(), purpose: 'list' },
    });
    if (!list) throw new ValidationError(field, `${field}: no list ${id}`);
    if (list.status !== 'Ready' && list.status !== 'Complete')
      throw new ValidationError(
        field,
        `${field}: list ${id} is ${list.status}; only Ready or Complete lists can be used`,
      );
    return list;
  }

  /** excludeListId and the lists it excluded, recursively; capped by count and websites. */
  private async exclusions(accountId: number, id: string): Promise<string[]> {
    const named = await this.usableList(accountId, id, 'excludeListId');
    const inherited = (JSON.parse(named.request) as ListRequest).excludeListIds ?? [];
    const alive = inherited.length
      ? (
          await this.db.manager.find(LeadListEntity, {
            where: { id: In(inherited), accountId, deletedAt: IsNull() },
            select: { id: true },
          })
        ).map((l) => l.id)
      : [];
    const ids = [id, ...inherited.filter((l) => alive.includes(l) && l !== id)];
    if (ids.length > MAX_EXCLUDED_LISTS)
      throw new ValidationError(
        'excludeListId',
        `excludeListId: at most ${MAX_EXCLUDED_LISTS} lists may be excluded (this one excludes ${ids.length} with its own exclusions)`,
      );
    const n = await this.lists.distinctSites(ids);
    if (n > MAX_EXCLUDED_WEBSITES)
      throw new ValidationError(
        'excludeListId',
        `excludeListId: at most ${MAX_EXCLUDED_WEBSITES} websites may be excluded (these lists hold ${n})`,
      );
    return ids;
  }

  /** Each category's top technologies by websites in the index (at most CATEGORY_TOP). */
  private async categoryTechnologies(request: ListRequest): Promise<ListTechnology[]> {
    const out: ListTechnology[] = [];
    const taken = new Set(request.technologies.map((t) => t.slug));
    for (const [i, slug] of request.categories.entries()) {
      if (!this.fingerprints.categoryBySlug(slug))
        throw new ValidationError('categories', `categories[${i}]: unknown category ${slug}`);
      const members = this.fingerprints.technologiesInCategory(slug).map((t) => t.slug);
      const counts = await this.index.sitesPerTechnology(members);
      const top = [...members]
        .sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, CATEGORY_TOP);
      for (const tech of top) {
        if (taken.has(tech)) continue;
        taken.add(tech);
        out.push({ slug: tech, operator: '=', version: null, explicit: false });
      }
    }
    return out;
  }

  /**
   * `vulnerabilities`: each id must name imported records that name a technology the service
   * detects (a 400 naming vulnerabilities[i] otherwise). Without technologies and categories, the
   * list's technologies are those the records name (one file each).
   */
  private async vulnerableTechnologies(request: ListRequest): Promise<ListTechnology[]> {
    const ids = request.vulnerabilities ?? [];
    if (ids.length === 0) return [];
    if (!this.affectedVersions)
      throw new ValidationError('vulnerabilities', 'vulnerabilities: no vulnerability data on this service');
    const named = new Set<string>();
    for (const [i, id] of ids.entries()) {
      const found = await this.affectedVersions.affectedVersionsOf(id, false);
      if (!found)
        throw new ValidationError(
          `vulnerabilities[${i}]`,
          `vulnerabilities[${i}]: no imported vulnerability is named ${id}`,
        );
      const known = found.slugs.filter((slug) => this.fingerprints.technologyBySlug(slug));
      if (known.length === 0)
        throw new ValidationError(
          `vulnerabilities[${i}]`,
          `vulnerabilities[${i}]: ${id} names no technology the service detects`,
        );
      for (const slug of known) named.add(slug);
    }
    if (request.technologies.length > 0) return [];
    return [...named].sort().map((slug) => ({ slug, operator: '=', version: null, explicit: false }));
  }

  /**
   * The technologies the list's vulnerabilities name and the (technology, version) pairs they
   * affect in the index now, read when
   * the list is calculated (the index and the imported data may have changed since it was
   * created); null when the list names no vulnerability.
   */
  private async affectedPairs(request: ListRequest): Promise<AffectedVersions | null> {
    const ids = request.vulnerabilities ?? [];
    if (ids.length === 0) return null;
    if (!this.affectedVersions) throw new PermanentJobError('No vulnerability data on this service');
    const slugs = new Set<string>();
    const pairs = new Map<string, { slug: string; version: string }>();
    for (const id of ids) {
      const found = await this.affectedVersions.affectedVersionsOf(id, Boolean(request.possiblyAffected));
      for (const slug of found?.slugs ?? []) slugs.add(slug);
      for (const pair of found?.pairs ?? []) pairs.set(`${pair.slug}\u0000${pair.version}`, pair);
    }
    return { slugs: [...slugs], pairs: [...pairs.values()] };
  }

  private technologyViews(request: ListRequest): ListTechnologyView[] {
    return request.technologies.map((t) => {
      const known = this.fingerprints.technologyBySlug(t.slug);
      return {
        slug: t.slug,
        name: known?.name ?? t.slug,
        categories: (known?.categories ?? []).map((c) => ({ slug: c.slug, name: c.name })),
        operator: t.operator,
        version: t.version,
      };
    });
  }

  summary(list: LeadListEntity): ListSummaryView {
    const request = JSON.parse(list.request) as ListRequest;
    return {
      id: list.id,
      createdAt: unix(list.createdAt),
      status: list.status,
      totalCredits: list.totalCredits,
      technologies: this.technologyViews(request),
      keywords: request.keywords,
      rows: Object.values(countsOf(list.rows)).reduce((a, b) => a + b, 0),
    };
  }

  view(list: LeadListEntity, base: LeadListEntity | null, origin: string | null): ListView {
    const r = JSON.parse(list.request) as ListRequest;
    const ready = list.status === 'Ready' || list.status === 'Complete';
    return {
      id: list.id,
      createdAt: unix(list.createdAt),
      status: list.status,
      technologies: this.technologyViews(r),
      keywords: r.keywords,
      languages: r.languages,
      countries: r.countries,
      industries: r.industries,
      companySizes: r.companySizes,
      tlds: r.tlds,
      matchCountryLanguage: r.matchCountryLanguage,
      matchTechnologies: r.matchTechnologies,
      rootPath: r.rootPath,
      subset: r.subset,
      subsetSlice: r.subsetSlice,
      subdomains: r.subdomains,
      minAge: r.minAge,
      maxAge: r.maxAge,
      fromDate: r.fromDate,
      requiredSets: r.requiredSets,
      excludeNoTraffic: r.excludeNoTraffic,
      excludeMultilingual: r.excludeMultilingual,
      excludeListId: r.excludeListId,
      // Extension fields, shown only on the lists that use them (the published form stays as it was).
      ...(r.vulnerabilities?.length
        ? { vulnerabilities: r.vulnerabilities, possiblyAffected: Boolean(r.possiblyAffected) }
        : {}),
      sets: r.sets,
      callbackUrl: r.callbackUrl,
      format: r.format,
      totalCredits: list.totalCredits,
      url: list.status === 'Complete' ? this.files.url(list.id, 'full.zip', origin) : null,
      sampleUrl: ready ? this.files.url(list.id, 'sample.zip', origin) : null,
      rows: Object.entries(countsOf(list.rows)).map(([slug, rows]) => ({ slug, rows })),
      setRows: Object.entries(countsOf(list.setRows)).map(([set, rows]) => ({ set, rows })),
      websites: list.websites,
      baseListId: r.baseListId,
      baseList: base && !base.deletedAt ? this.summary(base) : null,
      error: list.error,
    };
  }
}
