import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Figures read from the database at scrape time: shared by every process, so one scrape sees them all. */
export interface StoredFigures {
  /** Jobs per kind and status (queued, running, succeeded, dead). */
  jobs: { kind: string; status: string; count: number }[];
  /** Age in seconds of the oldest job per kind that is due and still waiting for a worker. */
  oldestWaitingSeconds: { kind: string; seconds: number }[];
  /** Callback deliveries per outcome (pending, delivered, failed). */
  callbackDeliveries: { outcome: string; count: number }[];
  /** Credits moved since the ledger began, per kind (charge, refund, grant), as positive numbers. */
  credits: { kind: string; total: number }[];
}

const PREFIX = 'techintel_';

/**
 * The service's Prometheus metrics (prom-client). Labels are bounded by construction: route
 * templates, job kinds, statuses and outcomes only, never keys, URLs, hosts or account data.
 *
 * Per-process figures (requests, detection time, job failures seen by this process's runner) are
 * counted as they happen; queue depth, callback outcomes and credits come from the database at
 * scrape time (refresh), so extra worker processes are included without a push gateway.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly detectionSeconds: Histogram;
  readonly jobFailures: Counter<'kind' | 'outcome'>;
  /** GraphQL documents refused by a work bound before validation, by the bound (src/http/document-limits.ts). */
  readonly graphqlDocumentsRefused: Counter<'limit'>;
  /** Open WebSocket connections of this process (src/http/websocket-sessions.ts). */
  readonly webSocketSessions: Gauge;
  private readonly jobs: Gauge<'kind' | 'status'>;
  private readonly oldestWaiting: Gauge<'kind'>;
  private readonly callbackDeliveries: Gauge<'outcome'>;
  private readonly credits: Counter<'kind'>;
  private readonly fingerprints: Gauge;
  private defaultsCollected = false;

  constructor() {
    const registers = [this.registry];
    this.httpRequests = new Counter({
      name: `${PREFIX}http_requests_total`,
      help: 'HTTP requests answered, by method, route template (or family) and status code',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: 'Time from request to the last byte of the answer, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.detectionSeconds = new Histogram({
      name: `${PREFIX}detection_seconds`,
      help: 'Time the detection engine spent on one fetched page',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
    });
    this.jobFailures = new Counter({
      name: `${PREFIX}job_failures_total`,
      help: 'Failed job attempts seen by this process, by job kind and outcome (retry or dead)',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.graphqlDocumentsRefused = new Counter({
      name: `${PREFIX}graphql_documents_refused_total`,
      help: 'GraphQL documents refused before validation, by the bound they passed (operations, fields, merges)',
      labelNames: ['limit'],
      registers,
    });
    this.webSocketSessions = new Gauge({
      name: `${PREFIX}websocket_sessions`,
      help: 'Open WebSocket connections of this process (GraphQL subscriptions)',
      registers,
    });
    this.jobs = new Gauge({
      name: `${PREFIX}jobs`,
      help: 'Jobs in the durable queue, by kind and status',
      labelNames: ['kind', 'status'],
      registers,
    });
    this.oldestWaiting = new Gauge({
      name: `${PREFIX}job_oldest_waiting_seconds`,
      help: 'Age of the oldest due job of each kind still waiting for a worker (0 when none waits)',
      labelNames: ['kind'],
      registers,
    });
    this.callbackDeliveries = new Gauge({
      name: `${PREFIX}callback_deliveries`,
      help: 'Signed callback deliveries by outcome (pending, delivered, failed)',
      labelNames: ['outcome'],
      registers,
    });
    this.credits = new Counter({
      name: `${PREFIX}credits_total`,
      help: 'Credits moved since the ledger began, by kind (charge, refund, grant)',
      labelNames: ['kind'],
      registers,
    });
    this.fingerprints = new Gauge({
      name: `${PREFIX}fingerprint_technologies`,
      help: 'Technologies in the loaded fingerprint set',
      registers,
    });
  }

  /** Node process metrics (CPU, memory, event loop lag, GC); only when /metrics is served. */
  collectProcessMetrics(): void {
    if (this.defaultsCollected) return;
    this.defaultsCollected = true;
    collectDefaultMetrics({ register: this.registry });
  }

  setFingerprintCount(count: number): void {
    this.fingerprints.set(count);
  }

  /** Times one detection run. */
  timeDetection<T>(work: () => T): T {
    const end = this.detectionSeconds.startTimer();
    try {
      return work();
    } finally {
      end();
    }
  }

  /** Replaces the stored figures with a fresh reading (called before each scrape). */
  applyStoredFigures(figures: StoredFigures): void {
    this.jobs.reset();
    for (const row of figures.jobs) this.jobs.set({ kind: row.kind, status: row.status }, row.count);
    this.oldestWaiting.reset();
    for (const row of figures.oldestWaitingSeconds) this.oldestWaiting.set({ kind: row.kind }, row.seconds);
    this.callbackDeliveries.reset();
    for (const row of figures.callbackDeliveries) {
      this.callbackDeliveries.set({ outcome: row.outcome }, row.count);
    }
    this.credits.reset();
    for (const row of figures.credits) this.credits.inc({ kind: row.kind }, row.total);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
