import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { DetectionEngine } from '../../detection';
import { type EventBus, TOPICS } from '../../platform/event-bus';
import { logger as defaultLogger, type Logger } from '../../platform/logger';
import type { FingerprintPackRepository } from '../../storage/fingerprint-pack.repository';
import {
  compileSet,
  compileSetNow,
  correctionsLayer,
  defaultBase,
  type PackLayer,
  setIdOf,
} from './pack-set';

/** Announced (with REDIS_URL, to every process) when a set was activated: `{ version }`. */
export interface FingerprintsActivatedEvent {
  version: string;
}

/** What a switch cost this process. */
export interface SwitchReport {
  from: string;
  to: string;
  /** Wall time from the first read of the set to the swap. */
  ms: number;
  /** The longest the event loop was held up meanwhile (perf_hooks.monitorEventLoopDelay). */
  stallMs: number;
  at: Date;
}

export interface FingerprintSourceOptions {
  packs: FingerprintPackRepository;
  /** The set a process uses when none was ever activated (built-in or FINGERPRINTS_PATH + corrections). */
  defaultLayers: () => PackLayer[];
  /** FINGERPRINTS_POLL_SECONDS; 0 polls never (tests call refresh). */
  pollSeconds: number;
  events?: EventBus;
  /** Compiles layers into an engine; tests put a failing or gated one here. */
  compile?: (layers: readonly PackLayer[], version: string) => Promise<DetectionEngine>;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
}

/** The layers of the default set: FINGERPRINTS_PATH or the built-in pack, then the corrections pack. */
export function defaultLayersOf(fingerprintsPath: string | undefined, corrections = true): () => PackLayer[] {
  return () => {
    const base = defaultBase(fingerprintsPath);
    const correctionsPack = correctionsLayer(corrections, base);
    return [base, ...(correctionsPack ? [correctionsPack] : [])];
  };
}

/** A stored set's layers, read from the database (the files gunzipped off the event loop). */
export async function storedLayers(packs: FingerprintPackRepository, setId: string): Promise<PackLayer[]> {
  const set = await packs.set(setId);
  if (!set) throw new Error(`fingerprint set ${setId} is not stored`);
  const rows = await packs.packs(set.components);
  if (rows.length !== set.components.length)
    throw new Error(`fingerprint set ${setId} lacks some of its packs`);
  const layers: PackLayer[] = [];
  for (const row of rows)
    layers.push({
      name: row.name,
      role: row.role,
      version: row.version,
      contentHash: row.contentHash,
      source: await packs.packFiles(row.id),
    });
  return layers;
}

/**
 * The fingerprints a process detects with, kept current. Every unit of work takes `current()` once
 * when it starts and keeps that engine to its end, so an analysis in flight finishes on the version it
 * started with. The active set is the newest activation in the database; the process looks every
 * FINGERPRINTS_POLL_SECONDS, and at once when an activation is announced on the event bus (with
 * REDIS_URL the CLI's and the other processes' announcements reach it). A new set is read, compiled
 * in steps that let requests through, and swapped in one assignment; a set that fails to load or
 * compile leaves the running one in place, and the log says why.
 */
export class FingerprintSource {
  private engine: DetectionEngine;
  private readonly listeners: ((engine: DetectionEngine, previous: DetectionEngine) => void)[] = [];
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The last set that failed, so a poll does not compile it again every few seconds. */
  private failedSet: string | null = null;
  lastSwitch: SwitchReport | null = null;
  lastError: { version: string; message: string; at: Date } | null = null;

  private constructor(
    private readonly options: FingerprintSourceOptions,
    engine: DetectionEngine,
  ) {
    this.engine = engine;
  }

  /**
   * The active set from the database, or the default set when none was ever activated (or the
   * stored one cannot be loaded: said in the log). Polling and the event subscription start here.
   */
  static async start(options: FingerprintSourceOptions): Promise<FingerprintSource> {
    const log = options.logger ?? defaultLogger;
    // At start-up nothing is served yet: the set is compiled at once (slices would only be slower).
    const compile =
      options.compile ??
      ((layers: readonly PackLayer[], version: string) => Promise.resolve(compileSetNow(layers, version)));
    let engine: DetectionEngine | null = null;
    const active = await options.packs.activeSet();
    if (active) {
      try {
        engine = await compile(await storedLayers(options.packs, active.setId), active.setId);
      } catch (error) {
        log.error(
          { version: active.setId, err: (error as Error).message },
          'the active fingerprint set could not be loaded: starting on the default set',
        );
      }
    }
    if (!engine) {
      const layers = options.defaultLayers();
      engine = await compile(layers, setIdOf(layers));
    }
    const source = new FingerprintSource(options, engine);
    source.listen();
    return source;
  }

  /** The engine to use for a unit of work that starts now. */
  current(): DetectionEngine {
    return this.engine;
  }

  get version(): string {
    return this.engine.version;
  }

  /** The layers the running engine was compiled from: its stored set, else the default set. */
  async currentLayers(): Promise<PackLayer[]> {
    const version = this.engine.version;
    if (await this.options.packs.set(version)) return storedLayers(this.options.packs, version);
    return this.options.defaultLayers();
  }

  /** Called after each swap with the new engine and the one it replaced (caches keyed by it drop). */
  onSwitch(listener: (engine: DetectionEngine, previous: DetectionEngine) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Reads the active set and switches to it when it is another one. Calls made while one runs are
   * folded into one more run after it.
   */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.switchToActive();
        } while (this.again && !this.stopped);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private listen(): void {
    const { pollSeconds, events } = this.options;
    if (pollSeconds > 0) {
      this.timer = setInterval(() => void this.refresh(), pollSeconds * 1000);
      this.timer.unref();
    }
    if (events)
      void (async () => {
        for await (const event of events.subscribe(TOPICS.fingerprintsActivated)) {
          if (this.stopped) break;
          if ((event as FingerprintsActivatedEvent).version !== this.engine.version) void this.refresh();
        }
      })();
  }

  private async switchToActive(): Promise<void> {
    const log = this.options.logger ?? defaultLogger;
    let active;
    try {
      active = await this.options.packs.activeSet();
    } catch (error) {
      // A stopped process closed its database under this read: nothing to say.
      if (!this.stopped)
        log.warn({ err: (error as Error).message }, 'fingerprints: the active set could not be read');
      return;
    }
    if (!active || active.setId === this.engine.version || active.setId === this.failedSet) return;
    const started = performance.now();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    let next: DetectionEngine;
    try {
      const layers = await storedLayers(this.options.packs, active.setId);
      next = await (this.options.compile ?? compileSet)(layers, active.setId);
    } catch (error) {
      delay.disable();
      if (this.stopped) return;
      this.failedSet = active.setId;
      const message = (error as Error).message;
      this.lastError = { version: active.setId, message, at: new Date() };
      log.error(
        { version: active.setId, running: this.engine.version, err: message },
        'fingerprint set failed to load or compile: the running set stays',
      );
      return;
    }
    delay.disable();
    if (this.stopped) return;
    const previous = this.engine;
    this.engine = next;
    this.failedSet = null;
    this.lastSwitch = {
      from: previous.version,
      to: next.version,
      ms: Math.round(performance.now() - started),
      stallMs: Math.round(delay.max / 1e6),
      at: new Date(),
    };
    for (const listener of this.listeners) listener(next, previous);
    log.info(
      { ...this.lastSwitch, technologies: next.fingerprints.technologies.length },
      'fingerprint set switched',
    );
  }
}
