import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { In } from 'typeorm';
import type { PackSource } from '../detection/pack-files';
import type { Database } from './database';
import { FingerprintActivationEntity, FingerprintPackEntity, FingerprintSetEntity } from './entities';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

export type PackRole = 'base' | 'overlay';

/** A stored pack without its files. */
export interface StoredPack {
  id: number;
  name: string;
  role: PackRole;
  version: string;
  contentHash: string;
  technologies: number;
  sizeBytes: number;
  loadedAt: Date;
  loadedBy: string;
}

export interface NewPack {
  name: string;
  role: PackRole;
  version: string;
  contentHash: string;
  technologies: number;
  source: PackSource;
  loadedAt: Date;
  loadedBy: string;
}

export interface Activation {
  id: number;
  setId: string;
  activatedAt: Date;
  activatedBy: string;
}

export interface StoredSet {
  id: string;
  /** Pack row ids in order, the base first. */
  components: number[];
  createdAt: Date;
}

const WITHOUT_FILES = {
  id: true,
  name: true,
  role: true,
  version: true,
  contentHash: true,
  technologies: true,
  sizeBytes: true,
  loadedAt: true,
  loadedBy: true,
} as const;

function toStored(row: FingerprintPackEntity): StoredPack {
  return {
    id: Number(row.id),
    name: row.name,
    role: row.role as PackRole,
    version: row.version,
    contentHash: row.contentHash,
    technologies: Number(row.technologies),
    sizeBytes: Number(row.sizeBytes),
    loadedAt: row.loadedAt,
    loadedBy: row.loadedBy,
  };
}

/**
 * fingerprint_packs, fingerprint_sets and fingerprint_activations: the packs' content (gzipped, in
 * zlib's thread pool rather than on the event loop), the sets ever used and which one is active.
 */
export class FingerprintPackRepository {
  constructor(private readonly db: Database) {}

  /**
   * Stores a pack's content, or finds the row holding the same content under the same name and role
   * (loading a pack twice adds nothing).
   */
  async storePack(pack: NewPack): Promise<StoredPack> {
    const existing = await this.findPack(pack.name, pack.role, pack.contentHash);
    if (existing) return existing;
    const json = JSON.stringify(pack.source);
    const files = await gzipAsync(Buffer.from(json, 'utf8'), { level: 6 });
    await this.db.transaction(async (m) => {
      // A concurrent load of the same content may have come first: the unique index says so.
      const again = await m.findOne(FingerprintPackEntity, {
        where: { name: pack.name, role: pack.role, contentHash: pack.contentHash },
        select: { id: true },
      });
      if (again) return;
      await m.insert(FingerprintPackEntity, {
        name: pack.name,
        role: pack.role,
        version: pack.version,
        contentHash: pack.contentHash,
        technologies: pack.technologies,
        sizeBytes: Buffer.byteLength(json),
        files,
        loadedAt: pack.loadedAt,
        loadedBy: pack.loadedBy,
      });
    });
    return (await this.findPack(pack.name, pack.role, pack.contentHash))!;
  }

  private async findPack(name: string, role: PackRole, contentHash: string): Promise<StoredPack | null> {
    const row = await this.db.manager.findOne(FingerprintPackEntity, {
      where: { name, role, contentHash },
      select: WITHOUT_FILES,
    });
    return row ? toStored(row) : null;
  }

  /** The packs of these ids, in the order given (missing ids are left out). */
  async packs(ids: readonly number[]): Promise<StoredPack[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.manager.find(FingerprintPackEntity, {
      where: { id: In([...ids]) },
      select: WITHOUT_FILES,
    });
    const byId = new Map(rows.map((row) => [Number(row.id), toStored(row)]));
    return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  }

  /** A pack's files as they were loaded. */
  async packFiles(id: number): Promise<PackSource> {
    const row = await this.db.manager.findOne(FingerprintPackEntity, {
      where: { id },
      select: { id: true, files: true },
    });
    if (!row) throw new Error(`fingerprint pack ${id} is not stored`);
    return JSON.parse((await gunzipAsync(row.files)).toString('utf8')) as PackSource;
  }

  /** Records the set (once) and makes it the active one. */
  async activate(setId: string, components: readonly number[], at: Date, by: string): Promise<Activation> {
    return this.db.transaction(async (m) => {
      const known = await m.findOne(FingerprintSetEntity, { where: { id: setId }, select: { id: true } });
      if (!known)
        await m.insert(FingerprintSetEntity, {
          id: setId,
          components: JSON.stringify(components),
          createdAt: at,
        });
      const inserted = await m.insert(FingerprintActivationEntity, {
        setId,
        activatedAt: at,
        activatedBy: by.slice(0, 200),
      });
      const id = Number((inserted.identifiers[0] as { id: number }).id);
      return { id, setId, activatedAt: at, activatedBy: by.slice(0, 200) };
    });
  }

  /** The newest activation (null when no set was ever activated): one read by primary key. */
  async activeSet(): Promise<Activation | null> {
    const [row] = await this.db.manager.find(FingerprintActivationEntity, {
      order: { id: 'DESC' },
      take: 1,
    });
    return row
      ? { id: Number(row.id), setId: row.setId, activatedAt: row.activatedAt, activatedBy: row.activatedBy }
      : null;
  }

  async set(id: string): Promise<StoredSet | null> {
    const row = await this.db.manager.findOne(FingerprintSetEntity, { where: { id } });
    return row
      ? { id: row.id, components: JSON.parse(row.components) as number[], createdAt: row.createdAt }
      : null;
  }

  /** The latest activations, newest first (the history an operator rolls back along). */
  async activations(limit: number): Promise<Activation[]> {
    const rows = await this.db.manager.find(FingerprintActivationEntity, {
      order: { id: 'DESC' },
      take: limit,
    });
    return rows.map((row) => ({
      id: Number(row.id),
      setId: row.setId,
      activatedAt: row.activatedAt,
      activatedBy: row.activatedBy,
    }));
  }
}
