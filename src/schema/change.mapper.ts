import type { ChangePageSource, ChangeSource } from '../services/changes/changes.contract';
import type { SiteTimeline, TechnologyTimeline } from '../services/changes/change-feed.service';
import type { SiteEntity } from '../storage/entities';
import {
  IndexedSite,
  TechnologyChange,
  TechnologyChangeConnection,
  type SiteTechnologyTimeline,
} from './change.type';
import { unixSeconds } from './unix-time';

export function toTechnologyChange(change: ChangeSource): TechnologyChange {
  return Object.assign(new TechnologyChange(), {
    id: change.id,
    domain: change.hostname,
    technology: change.slug,
    name: change.name,
    kind: change.kind,
    fromVersion: change.fromVersion || null,
    toVersion: change.toVersion || null,
    at: Math.floor(change.at / 1000),
    fingerprintsVersion: change.fingerprintsVersion || null,
    vulnerability: change.vulnerability
      ? {
          id: change.vulnerability.id,
          aliases: change.vulnerability.aliases,
          severity: change.vulnerability.severity ?? null,
          score: change.vulnerability.score ?? null,
          match: change.vulnerability.match,
        }
      : null,
  });
}

/** A page of the feed as a cursor connection (the cursor is the change id, as REST's moreAfter). */
export function toChangeConnection(page: ChangePageSource): TechnologyChangeConnection {
  const nodes = page.changes.map(toTechnologyChange);
  return Object.assign(new TechnologyChangeConnection(), {
    nodes,
    edges: nodes.map((node) => ({ cursor: String(node.id), node })),
    pageInfo: {
      hasNextPage: page.moreAfter !== null,
      endCursor: nodes.length ? String(nodes[nodes.length - 1].id) : null,
    },
  });
}

export function toIndexedSite(site: SiteTimeline): IndexedSite {
  return Object.assign(toSiteNode(site.site), { technologies: site.technologies.map(toTechnologyTimeline) });
}

/** A site of the index as a node of the graph; its technologies are read when asked for. */
export function toSiteNode(row: SiteEntity): IndexedSite {
  return Object.assign(new IndexedSite(), {
    domain: row.hostname,
    registrableDomain: row.domain,
    firstSeenAt: unixSeconds(row.firstSeenAt),
    lastAnalyzedAt: unixSeconds(row.lastAnalyzedAt),
    country: row.country,
    trafficRank: row.trafficRank,
    row,
  });
}

export function toTechnologyTimeline(t: TechnologyTimeline): SiteTechnologyTimeline {
  return {
    slug: t.slug,
    name: t.name,
    version: t.version || null,
    confidence: t.confidence,
    live: t.live,
    firstSeenAt: unixSeconds(t.firstSeenAt),
    lastSeenAt: unixSeconds(t.lastSeenAt),
    removedAt: unixSeconds(t.removedAt),
    evidencePaths: t.evidencePaths,
    versions: t.versions.map((v) => ({
      version: v.version,
      firstSeenAt: unixSeconds(v.firstSeenAt),
      lastSeenAt: unixSeconds(v.lastSeenAt),
    })),
    currentVersions: t.currentVersions,
  };
}
