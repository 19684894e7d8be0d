import { createHash } from 'node:crypto';
import { Database } from '../../storage/database';
import { SiteIndexRepository } from '../../storage/site-index.repository';
import type { Fingerprints, Technology } from '../../detection';
import { fingerprintsOf, type EngineSource } from '../fingerprints/engine-source';
import { NotFoundError } from '../../errors';

export interface CatalogueCategoryRef {
  id: number;
  slug: string;
  name: string;
  priority: number;
}

/** A technology of the public catalogue (GET /v2/technologies/). */
export interface CatalogueTechnology {
  slug: string;
  name: string;
  icon: string;
  website: string;
  cpe: string | null;
  categories: CatalogueCategoryRef[];
  /** Some pattern of the technology can yield a version. */
  versioned: boolean;
  /** Sites of this service's index on which it was confirmed within the last HOSTNAMES_WINDOW_DAYS days. */
  hostnames: number;
}

/** A category of the public catalogue (GET /v2/categories/). */
export interface CatalogueCategory {
  id: number;
  slug: string;
  name: string;
  priority: number;
  technologiesCount: number;
  groups: { name: string; slug: string }[];
}

/** What "currently confirmed" means for `hostnames`: the default window of lead lists (maxAge 3 months). */
export const HOSTNAMES_WINDOW_DAYS = 90;

interface Snapshot {
  /** The fingerprints the snapshot's ETag was made for: a switched set makes it stale at once. */
  fingerprints: Fingerprints;
  counts: Map<string, number>;
  etag: string;
  takenAt: number;
}

/**
 * The public technology and category catalogue, served from the loaded fingerprints
 * (FINGERPRINTS_PATH included). `hostnames` is the one figure that comes from the database: how many
 * sites of the index currently show the technology (one grouped count over the covering index on
 * site_technologies(slug, confirmed_at)), taken at most once per cache period, so every response of
 * a period carries the same ETag and a client's If-None-Match can be answered without work.
 */
export class CatalogueService {
  private snapshot: Snapshot | null = null;
  private pending: Promise<Snapshot> | null = null;
  private hashed: { fingerprints: Fingerprints; hash: string } | null = null;
  private readonly index: SiteIndexRepository;
  private readonly fingerprintsNow: () => Fingerprints;

  constructor(
    db: Database,
    fingerprints: Fingerprints | EngineSource,
    private readonly cacheSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.fingerprintsNow = fingerprintsOf(fingerprints);
    this.index = new SiteIndexRepository(db);
  }

  /** The active set's fingerprints, read per call (they switch live). */
  private get fingerprints(): Fingerprints {
    return this.fingerprintsNow();
  }

  /** A hash of what the catalogue shows of the fingerprints, computed once per set. */
  private fingerprintsHash(fingerprints: Fingerprints): string {
    if (this.hashed?.fingerprints === fingerprints) return this.hashed.hash;
    const hash = createHash('sha256');
    for (const technology of fingerprints.technologies)
      hash.update(
        `${technology.slug}\0${technology.name}\0${technology.icon}\0${technology.website}\0${technology.cpe ?? ''}\0${technology.versioned}\0${technology.categories.map((c) => c.id).join(',')}\n`,
      );
    for (const category of fingerprints.categories)
      hash.update(
        `${category.id}\0${category.slug}\0${category.name}\0${category.priority}\0${category.groups.join(',')}\n`,
      );
    for (const group of fingerprints.groups) hash.update(`${group.id}\0${group.name}\n`);
    this.hashed = { fingerprints, hash: hash.digest('hex').slice(0, 16) };
    return this.hashed.hash;
  }

  /** Seconds a client may reuse an answer (Cache-Control max-age). */
  get maxAgeSeconds(): number {
    return this.cacheSeconds;
  }

  /** The entity tag of the catalogue as it is now: the fingerprints and the current hostname counts. */
  async etag(): Promise<string> {
    return (await this.current()).etag;
  }

  async technologies(): Promise<CatalogueTechnology[]> {
    const { counts, fingerprints } = await this.current();
    return fingerprints.technologies.map((technology) => this.toTechnology(technology, counts));
  }

  async technology(slug: string): Promise<CatalogueTechnology> {
    const technology = this.fingerprints.technologyBySlug(slug);
    if (!technology) throw new NotFoundError(`No technology with slug ${JSON.stringify(slug.slice(0, 100))}`);
    return this.toTechnology(technology, (await this.current()).counts);
  }

  /** Technologies by slug, in the order asked (null: not in the loaded fingerprints): GraphQL's batch. */
  async technologiesBySlug(slugs: readonly string[]): Promise<(CatalogueTechnology | null)[]> {
    const { counts, fingerprints } = await this.current();
    return slugs.map((slug) => {
      const technology = fingerprints.technologyBySlug(slug);
      return technology ? this.toTechnology(technology, counts) : null;
    });
  }

  /** The technologies of a category, in the fingerprints' order (NOT_FOUND for an unknown slug). */
  async technologiesIn(categorySlug: string): Promise<CatalogueTechnology[]> {
    const category = this.category(categorySlug);
    const { counts, fingerprints } = await this.current();
    return fingerprints.technologiesInCategory(category.id).map((t) => this.toTechnology(t, counts));
  }

  categories(): CatalogueCategory[] {
    return this.fingerprints.categories.map((category) => this.toCategory(category.id));
  }

  category(slug: string): CatalogueCategory {
    const category = this.fingerprints.categoryBySlug(slug);
    if (!category) throw new NotFoundError(`No category with slug ${JSON.stringify(slug.slice(0, 100))}`);
    return this.toCategory(category.id);
  }

  private toTechnology(technology: Technology, counts: Map<string, number>): CatalogueTechnology {
    return {
      slug: technology.slug,
      name: technology.name,
      icon: technology.icon,
      website: technology.website,
      cpe: technology.cpe ?? null,
      categories: technology.categories.map(({ id, slug, name, priority }) => ({ id, slug, name, priority })),
      versioned: technology.versioned,
      hostnames: counts.get(technology.slug) ?? 0,
    };
  }

  private toCategory(id: number): CatalogueCategory {
    const category = this.fingerprints.categoryById(id)!;
    return {
      id: category.id,
      slug: category.slug,
      name: category.name,
      priority: category.priority,
      technologiesCount: this.fingerprints.technologiesInCategory(category.id).length,
      groups: category.groups.flatMap((groupId) => {
        const group = this.fingerprints.groups.find((g) => g.id === groupId);
        return group ? [{ name: group.name, slug: group.slug }] : [];
      }),
    };
  }

  private async current(): Promise<Snapshot> {
    const fresh =
      this.snapshot &&
      this.snapshot.fingerprints === this.fingerprints &&
      this.now() - this.snapshot.takenAt < this.cacheSeconds * 1000;
    if (fresh) return this.snapshot!;
    // Concurrent requests at expiry share one count.
    this.pending ??= this.take().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async take(): Promise<Snapshot> {
    const fingerprints = this.fingerprints;
    const since = new Date(this.now() - HOSTNAMES_WINDOW_DAYS * 86_400_000);
    const counts = await this.index.sitesPerTechnologySince(since);
    const hash = createHash('sha256').update(this.fingerprintsHash(fingerprints));
    for (const [slug, sites] of [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      hash.update(`${slug}=${sites}\n`);
    const snapshot = {
      fingerprints,
      counts,
      etag: `"${hash.digest('hex').slice(0, 32)}"`,
      takenAt: this.now(),
    };
    this.snapshot = snapshot;
    return snapshot;
  }
}
