import type { ChangePageSource, ChangeSource } from '../services/changes/changes.contract';
import type { SiteTimeline } from '../services/changes/change-feed.service';
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
  return Object.assign(new IndexedSite(), {
    domain: site.hostname,
    registrableDomain: site.domain,
    firstSeenAt: unixSeconds(site.firstSeenAt),
    lastAnalyzedAt: unixSeconds(site.lastAnalyzedAt),
    technologies: site.technologies.map((t): SiteTechnologyTimeline => ({
      slug: t.slug,
      name: t.name,
      version: t.version || null,
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
    })),
  });
}
