import { realpathSync, existsSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { AppError, ForbiddenError, NotFoundError, ValidationError } from '../../errors';
import { readPack } from '../../detection/pack-files';
import type { PackProblem } from '../../detection/pack-validator';
import { parsePack } from '../../detection/raw-pack';
import { type EventBus, TOPICS } from '../../platform/event-bus';
import type { FingerprintPackRepository, StoredPack } from '../../storage/fingerprint-pack.repository';
import type { Principal } from '../platform/caller';
import { parseRequest } from '../platform/request-schema';
import {
  ActivateFingerprintsRequest,
  LoadFingerprintPackRequest,
  UnloadFingerprintPackRequest,
} from './fingerprint-packs.contract';
import { type FingerprintsActivatedEvent, type FingerprintSource, storedLayers } from './fingerprint-source';
import {
  BUILTIN_PACK,
  CORRECTIONS_PACK,
  correctionsLayer,
  layerOf,
  type PackLayer,
  PATH_PACK,
  setIdOf,
} from './pack-set';
import { type LayersValidator, validateLayersInline, validateLayersOffThread } from './pack-validation';

/** A pack refused: every problem found, each with its file, technology and field. */
export class InvalidPackError extends AppError {
  constructor(
    readonly problems: PackProblem[],
    parameter = 'path',
  ) {
    const errors = problems.filter((problem) => problem.severity === 'error');
    super(
      'BAD_REQUEST',
      `${parameter}: the pack is invalid (${errors.length} error${errors.length === 1 ? '' : 's'}): ` +
        errors
          .slice(0, 20)
          .map(
            (p) =>
              `${p.file}: ${[p.technology, p.field].filter((x) => x !== undefined).join('.')}: ${p.message}`,
          )
          .join('; '),
      { parameter, problems },
    );
  }
}

export interface PackStatusEntry {
  /** 0 for the base, then the overlays in the order they are laid. */
  position: number;
  name: string;
  role: 'base' | 'overlay';
  version: string;
  contentHash: string;
  technologies: number;
  /** When and by whom it was loaded (null for a default pack no one loaded). */
  loadedAt: Date | null;
  loadedBy: string | null;
}

export interface FingerprintStatus {
  /** The active set's id: what every observation made with it records. */
  version: string;
  /** Whether the set was activated (false: the default set, nothing ever loaded). */
  stored: boolean;
  activatedAt: Date | null;
  activatedBy: string | null;
  packs: PackStatusEntry[];
  /** The corrections pack this deployment ships, and whether the active set has it as it is. */
  corrections: { version: string; active: boolean } | null;
  /** Earlier activations, newest first: the versions activate can go back to. */
  history: { version: string; activatedAt: Date; activatedBy: string }[];
  /** This process: the version it runs and its last switch or failure. */
  process: { version: string; lastSwitchStallMs: number | null; lastError: string | null };
}

export interface LoadResult {
  version: string;
  previousVersion: string;
  pack: { name: string; role: 'base' | 'overlay'; version: string; technologies: number };
  /** Warnings of the loaded pack (errors refuse it). */
  warnings: PackProblem[];
}

export interface FingerprintPackSettings {
  operatorAccountIds: readonly string[];
  /** FINGERPRINT_PACKS_DIR: where the operator mutation reads packs from (unset: the mutation is off). */
  packsDir?: string;
  /** FINGERPRINTS_CORRECTIONS: whether new sets carry the corrections pack (default on). */
  corrections?: boolean;
  /** The corrections pack's folder (tests give their own); CORRECTIONS_PACK_DIR by default. */
  correctionsDir?: string;
}

const DEFAULT_BASES = new Set([BUILTIN_PACK, PATH_PACK]);
const RESERVED = new Set([BUILTIN_PACK, PATH_PACK, CORRECTIONS_PACK]);

/**
 * Fingerprint packs for operators (the CLI's fingerprints:* commands and the operator mutations):
 * a pack is validated completely, as an overlay over the packs below it or as the new base, before
 * anything is stored; a refused pack changes nothing. An accepted change stores the packs, activates
 * the new set (an id derived from its packs), announces it, and every process switches
 * (FingerprintSource).
 */
export class FingerprintPackService {
  constructor(
    private readonly rows: FingerprintPackRepository,
    private readonly source: FingerprintSource,
    private readonly events: EventBus,
    private readonly defaultLayers: () => PackLayer[],
    private readonly settings: FingerprintPackSettings,
  ) {}

  /** The active set's layers: stored, or the default set when none was ever activated. */
  private async activeLayers(): Promise<{ layers: PackLayer[]; version: string }> {
    const active = await this.rows.activeSet();
    if (active) return { layers: await storedLayers(this.rows, active.setId), version: active.setId };
    const layers = this.defaultLayers();
    return { layers, version: setIdOf(layers) };
  }

  /**
   * Layers of a new set: the base, the corrections pack as this deployment ships it, then the
   * operator's overlays in load order.
   */
  private compose(base: PackLayer, overlays: PackLayer[]): PackLayer[] {
    const corrections = this.correctionsOver(base);
    return [base, ...(corrections ? [corrections] : []), ...overlays];
  }

  /** The corrections pack as shipped, cut to what `base` has. */
  private correctionsOver(base: PackLayer): PackLayer | null {
    return correctionsLayer(this.settings.corrections !== false, base, this.settings.correctionsDir);
  }

  /**
   * Validates a pack over the active set and activates the set with it. `validate` runs the checks:
   * inline for the CLI, on a worker thread for the API (the mutations), whose event loop serves
   * requests meanwhile.
   */
  async load(
    input: { path: string; replace: boolean; name?: string; by: string },
    validate: LayersValidator = validateLayersInline,
  ): Promise<LoadResult> {
    const name = input.name ?? basename(input.path.replace(/[\\/]+$/, '')).replace(/\.json$/, '');
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name))
      throw new ValidationError(
        'name',
        `name ${JSON.stringify(name.slice(0, 100))} is not a pack name (give one)`,
      );
    if (RESERVED.has(name))
      throw new ValidationError('name', `name ${name} is reserved for the packs the service ships`);
    let source;
    try {
      source = readPack(input.path);
    } catch (error) {
      throw new InvalidPackError([
        { severity: 'error', file: input.path, message: (error as Error).message },
      ]);
    }
    const role = input.replace ? 'base' : 'overlay';
    const pack = layerOf(name, role, source);
    const { layers: active, version: previousVersion } = await this.activeLayers();
    const overlays = active.filter((layer) => layer.role === 'overlay' && layer.name !== CORRECTIONS_PACK);
    let layers: PackLayer[];
    if (input.replace) layers = this.compose(pack, overlays);
    else {
      const at = overlays.findIndex((layer) => layer.name === name);
      const next = at < 0 ? [...overlays, pack] : overlays.map((layer, i) => (i === at ? pack : layer));
      layers = this.compose(active[0], next);
    }
    const position = layers.indexOf(pack);
    const problems = await validate({ layers, from: position, subject: name });
    if (problems.some((problem) => problem.severity === 'error')) throw new InvalidPackError(problems);
    const version = await this.activateLayers(layers, input.by);
    return {
      version,
      previousVersion,
      pack: {
        name,
        role,
        version: pack.version,
        technologies: Object.keys(parsePack(source).technologies).length,
      },
      warnings: problems.filter((problem) => problem.severity === 'warning'),
    };
  }

  async unload(
    name: string,
    by: string,
    validate: LayersValidator = validateLayersInline,
  ): Promise<{ version: string; previousVersion: string }> {
    const { layers: active, version: previousVersion } = await this.activeLayers();
    if (name === CORRECTIONS_PACK)
      throw new ValidationError('name', 'the corrections pack ships with the service and cannot be unloaded');
    const [base, ...rest] = active;
    const overlays = rest.filter((layer) => layer.name !== CORRECTIONS_PACK);
    let layers: PackLayer[];
    if (base.name === name && !DEFAULT_BASES.has(name))
      layers = this.compose(this.defaultLayers()[0], overlays);
    else if (overlays.some((layer) => layer.name === name))
      layers = this.compose(
        base,
        overlays.filter((layer) => layer.name !== name),
      );
    else
      throw new NotFoundError(`No pack named ${JSON.stringify(name)} in the active set ${previousVersion}`);
    // What stays must still hold together (an overlay may have named a technology of the one removed).
    const problems = await validate({ layers, from: 1, subject: null });
    if (problems.length > 0) throw new InvalidPackError(problems, 'name');
    return { version: await this.activateLayers(layers, by), previousVersion };
  }

  async activate(version: string, by: string): Promise<{ version: string; previousVersion: string }> {
    const set = await this.rows.set(version);
    const previousVersion = (await this.rows.activeSet())?.setId ?? setIdOf(this.defaultLayers());
    if (!set) {
      // The default set runs until something is loaded and is stored only then: going back to it
      // (the version the first load replaced) stores it now.
      const defaults = this.defaultLayers();
      if (setIdOf(defaults) === version)
        return { version: await this.activateLayers(defaults, by), previousVersion };
      throw new NotFoundError(`No fingerprint set ${JSON.stringify(version)} was ever active`);
    }
    await this.rows.activate(version, set.components, new Date(), by);
    this.announce(version);
    return { version, previousVersion };
  }

  private async activateLayers(layers: PackLayer[], by: string): Promise<string> {
    const now = new Date();
    const stored: StoredPack[] = [];
    for (const layer of layers)
      stored.push(
        await this.rows.storePack({
          ...layer,
          technologies: Object.keys(parsePack(layer.source).technologies).length,
          loadedAt: now,
          loadedBy: by,
        }),
      );
    const version = setIdOf(layers);
    await this.rows.activate(
      version,
      stored.map((row) => row.id),
      now,
      by,
    );
    this.announce(version);
    return version;
  }

  /** Every process (this one included) reads the active set now rather than at its next poll. */
  private announce(version: string): void {
    this.events.publish(TOPICS.fingerprintsActivated, { version } satisfies FingerprintsActivatedEvent);
    // Without a shared bus the event reached this process's listeners only; the others poll.
    void this.source.refresh();
  }

  async status(): Promise<FingerprintStatus> {
    const active = await this.rows.activeSet();
    let packs: PackStatusEntry[];
    let version: string;
    let layers: { contentHash: string; name: string }[];
    let base: PackLayer;
    if (active) {
      const set = await this.rows.set(active.setId);
      const rows = await this.rows.packs(set?.components ?? []);
      version = active.setId;
      layers = rows;
      base = (await storedLayers(this.rows, active.setId))[0];
      packs = rows.map((row, position) => ({
        position,
        name: row.name,
        role: row.role,
        version: row.version,
        contentHash: row.contentHash,
        technologies: row.technologies,
        loadedAt: row.loadedAt,
        loadedBy: row.loadedBy,
      }));
    } else {
      const defaults = this.defaultLayers();
      version = setIdOf(defaults);
      layers = defaults;
      base = defaults[0];
      packs = defaults.map((layer, position) => ({
        position,
        name: layer.name,
        role: layer.role,
        version: layer.version,
        contentHash: layer.contentHash,
        technologies: Object.keys(parsePack(layer.source).technologies).length,
        loadedAt: null,
        loadedBy: null,
      }));
    }
    const corrections = this.correctionsOver(base);
    const history = await this.rows.activations(20);
    return {
      version,
      stored: active !== null,
      activatedAt: active?.activatedAt ?? null,
      activatedBy: active?.activatedBy ?? null,
      packs,
      corrections: corrections
        ? {
            version: corrections.version,
            active: layers.some(
              (l) => l.name === CORRECTIONS_PACK && l.contentHash === corrections.contentHash,
            ),
          }
        : null,
      history: history.map((row) => ({
        version: row.setId,
        activatedAt: row.activatedAt,
        activatedBy: row.activatedBy,
      })),
      process: {
        version: this.source.version,
        lastSwitchStallMs: this.source.lastSwitch?.stallMs ?? null,
        lastError: this.source.lastError?.message ?? null,
      },
    };
  }

  // The operator mutations and query: the caller's rights first, then the arguments.

  private requireOperator(principal: Principal, operation: string): string {
    if (principal.isDemo || !this.settings.operatorAccountIds.includes(String(principal.accountId)))
      throw new ForbiddenError(`${operation} is for operator accounts (OPERATOR_ACCOUNT_IDS)`);
    return `account:${principal.accountId}`;
  }

  statusFor(principal: Principal): Promise<FingerprintStatus> {
    this.requireOperator(principal, 'fingerprintPacks');
    return this.status();
  }

  async loadFor(principal: Principal, args: object): Promise<LoadResult> {
    const by = this.requireOperator(principal, 'loadFingerprintPack');
    const input = parseRequest(LoadFingerprintPackRequest, args);
    return this.load(
      { path: this.insidePacksDir(input.path), replace: input.replace, name: input.name, by },
      validateLayersOffThread,
    );
  }

  async unloadFor(principal: Principal, args: object): Promise<{ version: string; previousVersion: string }> {
    const by = this.requireOperator(principal, 'unloadFingerprintPack');
    return this.unload(parseRequest(UnloadFingerprintPackRequest, args).name, by, validateLayersOffThread);
  }

  async activateFor(
    principal: Principal,
    args: object,
  ): Promise<{ version: string; previousVersion: string }> {
    const by = this.requireOperator(principal, 'activateFingerprints');
    return this.activate(parseRequest(ActivateFingerprintsRequest, args).version, by);
  }

  /** The pack's path inside FINGERPRINT_PACKS_DIR (links resolved), or a 400 naming `path`. */
  private insidePacksDir(path: string): string {
    const dir = this.settings.packsDir;
    if (!dir)
      throw new ValidationError(
        'path',
        'path: loading packs over the API is off (set FINGERPRINT_PACKS_DIR)',
      );
    if (isAbsolute(path)) throw new ValidationError('path', 'path must be relative to FINGERPRINT_PACKS_DIR');
    const root = realpathSync(dir);
    const wanted = resolve(root, path);
    if (!existsSync(wanted))
      throw new ValidationError(
        'path',
        `path ${JSON.stringify(path)} does not exist in FINGERPRINT_PACKS_DIR`,
      );
    const real = realpathSync(wanted);
    const inside = relative(root, real);
    if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside))
      throw new ValidationError('path', 'path must name a pack inside FINGERPRINT_PACKS_DIR');
    return real;
  }
}
