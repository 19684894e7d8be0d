import { EntityManager, In } from 'typeorm';
import { Database, dbDate } from './database';
import {
  SiteEntity,
  SiteTechnologyEntity,
  SiteTechnologyLiveVersionEntity,
  SiteTechnologyVersionEntity,
  TechnologyChangeEntity,
  type TechnologyChangeKind,
} from './entities';

/** A change to write (its id comes from the insert). */
export interface NewTechnologyChange {
  slug: string;
  kind: TechnologyChangeKind;
  fromVersion: string;
  toVersion: string;
  /** vulnerability changes: the vulnerability as JSON. */
  vulnerability?: string | null;
}

/** A version of a technology on a site now (site_technology_live_versions; '' when none is known). */
export interface LiveVersionRow {
  slug: string;
  version: string;
  /** The paths of the pages whose latest reading found it (JSON). */
  evidencePaths: string;
}

/** A stored change with its site's host name. */
export interface TechnologyChangeRow {
  id: number;
  siteId: number;
  hostname: string;
  slug: string;
  kind: TechnologyChangeKind;
  fromVersion: string;
  toVersion: string;
  fingerprintsVersion: string;
  at: Date;
  /** vulnerability changes: the vulnerability as JSON; else null. */
  vulnerability: string | null;
}

/** Which changes to read: every set given narrows the feed (empty: no condition). */
export interface ChangeQuery {
  /** Registrable domains: their sites and every site under them. */
  domains: readonly string[];
  /** Host names of sites (subdomains asked for by name). */
  hostnames: readonly string[];
  slugs: readonly string[] | null;
  kinds: readonly TechnologyChangeKind[];
  since?: Date;
  until?: Date;
  /** Changes with a larger id than this. */
  afterId?: number;
  take: number;
}

/**
 * The timeline's statements: the evidence and removal columns of site_technologies, the version
 * sightings and the change log, written in the transaction that stores an analysis; and the reads
 * of the feed and of a site's timeline.
 */
export class TechnologyTimelineRepository {
  constructor(private readonly db: Database) {}

  /** Every technology row of a site (live or not): the state an analysis changes. */
  siteTechnologies(m: EntityManager, siteId: number): Promise<SiteTechnologyEntity[]> {
    return m.find(SiteTechnologyEntity, { where: { siteId } });
  }

  /** A technology the analysis did not find: its shrunk evidence, or its removal. */
  async markUndetected(
    m: EntityManager,
    row: { id: number; evidencePaths: string; removed: boolean },
    at: Date,
  ): Promise<void> {
    await m.update(
      SiteTechnologyEntity,
      { id: row.id },
      row.removed
        ? { evidencePaths: row.evidencePaths, live: false, removedAt: at }
        : { evidencePaths: row.evidencePaths },
    );
  }

  /** Versions seen now: new ones start here, known ones were last seen here. One statement. */
  async sightVersions(
    m: EntityManager,
    siteId: number,
    versions: readonly { slug: string; version: string }[],
    at: Date,
  ): Promise<void> {
    const unique = new Map(versions.filter((v) => v.version).map((v) => [`${v.slug} ${v.version}`, v]));
    if (unique.size === 0) return;
    await m
      .createQueryBuilder()
      .insert()
      .into(SiteTechnologyVersionEntity)
      .values(
        [...unique.values()].map((v) => ({
          siteId,
          slug: v.slug,
          version: v.version,
          firstSeenAt: at,
          lastSeenAt: at,
        })),
      )
      .orUpdate(['last_seen_at'], ['site_id', 'slug', 'version'])
      .updateEntity(false)
      .execute();
  }

  /** The versions of a site's technologies on it now. */
  liveVersions(m: EntityManager, siteId: number): Promise<LiveVersionRow[]> {
    return m.find(SiteTechnologyLiveVersionEntity, {
      where: { siteId },
      select: { slug: true, version: true, evidencePaths: true },
    });
  }

  /**
   * Replaces the versions on the site of these technologies (slug → its rows now; none: it is no
   * longer on the site): the rows of `stale` (the technologies among them that had rows) deleted,
   * the new ones inserted. A DELETE that finds no row still gap-locks the key range on MariaDB, and
   * other sites' inserts into that gap deadlocked with it, so nothing is deleted where nothing was.
   */
  async replaceLiveVersions(
    m: EntityManager,
    siteId: number,
    versions: ReadonlyMap<string, readonly Omit<LiveVersionRow, 'slug'>[]>,
    stale: readonly string[],
  ): Promise<void> {
    if (stale.length > 0) await m.delete(SiteTechnologyLiveVersionEntity, { siteId, slug: In([...stale]) });
    const rows = [...versions].flatMap(([slug, list]) => list.map((v) => ({ siteId, slug, ...v })));
    if (rows.length > 0)
      await m
        .createQueryBuilder()
        .insert()
        .into(SiteTechnologyLiveVersionEntity)
        .values(rows)
        .updateEntity(false)
        .execute();
  }

  /** A version that stopped being current keeps the technology's previous sighting as its last. */
  async supersedeVersion(
    m: EntityManager,
    siteId: number,
    superseded: { slug: string; version: string; lastSeenAt: Date },
  ): Promise<void> {
    await m.update(
      SiteTechnologyVersionEntity,
      { siteId, slug: superseded.slug, version: superseded.version },
      { lastSeenAt: superseded.lastSeenAt },
    );
  }

  /**
   * Appends changes of one site, in one statement, and returns them with their ids. The caller
   * holds the site's row lock (or SQLite's one writer), so the site's newest rows are these.
   */
  async appendChanges(
    m: EntityManager,
    siteId: number,
    changes: readonly NewTechnologyChange[],
    fingerprintsVersion: string,
    at: Date,
  ): Promise<{ id: number; slug: string; kind: TechnologyChangeKind }[]> {
    if (changes.length === 0) return [];
    await m
      .createQueryBuilder()
      .insert()
      .into(TechnologyChangeEntity)
      .values(changes.map((c) => ({ siteId, ...c, fingerprintsVersion, at })))
      .updateEntity(false)
      .execute();
    const rows = await m.find(TechnologyChangeEntity, {
      where: { siteId },
      select: { id: true, slug: true, kind: true },
      order: { id: 'DESC' },
      take: changes.length,
    });
    return rows.reverse().map((r) => ({ id: Number(r.id), slug: r.slug, kind: r.kind }));
  }

  // ---- reads ----

  /** One page of the change log in id order. */
  async changes(query: ChangeQuery): Promise<TechnologyChangeRow[]> {
    const builder = this.db.manager
      .createQueryBuilder(TechnologyChangeEntity, 'c')
      .innerJoin(SiteEntity, 's', 's.id = c.site_id')
      .select([
        'c.id AS id',
        'c.site_id AS siteId',
        's.hostname AS hostname',
        'c.slug AS slug',
        'c.kind AS kind',
        'c.from_version AS fromVersion',
        'c.to_version AS toVersion',
        'c.fingerprints_version AS fingerprintsVersion',
        'c.at AS at',
        'c.vulnerability AS vulnerability',
      ])
      .orderBy('c.id', 'ASC')
      .limit(query.take);
    if (query.afterId !== undefined) builder.andWhere('c.id > :afterId', { afterId: query.afterId });
    if (query.domains.length || query.hostnames.length) {
      const conditions: string[] = [];
      if (query.domains.length) conditions.push('s.domain IN (:...domains)');
      if (query.hostnames.length) conditions.push('s.hostname IN (:...hostnames)');
      builder.andWhere(`(${conditions.join(' OR ')})`, {
        domains: query.domains,
        hostnames: query.hostnames,
      });
    }
    if (query.slugs) builder.andWhere('c.slug IN (:...slugs)', { slugs: query.slugs });
    if (query.kinds.length) builder.andWhere('c.kind IN (:...kinds)', { kinds: query.kinds });
    if (query.since) builder.andWhere('c.at >= :since', { since: dbDate(this.db, query.since) });
    if (query.until) builder.andWhere('c.at < :until', { until: dbDate(this.db, query.until) });
    const rows = await builder.getRawMany<Record<string, unknown>>();
    return rows.map((r) => ({
      id: Number(r.id),
      siteId: Number(r.siteId ?? r.siteid),
      hostname: String(r.hostname),
      slug: String(r.slug),
      kind: String(r.kind) as TechnologyChangeKind,
      fromVersion: String(r.fromVersion ?? r.fromversion ?? ''),
      toVersion: String(r.toVersion ?? r.toversion ?? ''),
      fingerprintsVersion: String(r.fingerprintsVersion ?? r.fingerprintsversion ?? ''),
      at: asDate(r.at),
      vulnerability:
        r.vulnerability === null || r.vulnerability === undefined ? null : String(r.vulnerability),
    }));
  }

  /** A site's row by its index key. */
  site(hostname: string): Promise<SiteEntity | null> {
    return this.db.manager.findOne(SiteEntity, { where: { hostname } });
  }

  /** A site's technologies, live ones first, the sightings of their versions, and the versions on it now. */
  async timeline(siteId: number): Promise<{
    technologies: SiteTechnologyEntity[];
    versions: SiteTechnologyVersionEntity[];
    liveVersions: LiveVersionRow[];
  }> {
    const technologies = await this.db.manager.find(SiteTechnologyEntity, {
      where: { siteId },
      order: { live: 'DESC', confidence: 'DESC', slug: 'ASC' },
    });
    const versions = await this.db.manager.find(SiteTechnologyVersionEntity, {
      where: { siteId },
      order: { firstSeenAt: 'ASC', version: 'ASC' },
    });
    return { technologies, versions, liveVersions: await this.liveVersions(this.db.manager, siteId) };
  }
}

/** A raw datetime: a Date from mysql2, text from SQLite (stored as UTC). */
export function asDate(value: unknown): Date {
  if (value instanceof Date) return value;
  const text = String(value);
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
}
