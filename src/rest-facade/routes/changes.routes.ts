import { NotFoundError } from '../../errors';
import { ChangeResolver } from '../../resolvers/change.resolver';
import { SiteResolver } from '../../resolvers/site.resolver';
import type { IndexedSite, TechnologyChangeConnection } from '../../schema/change.type';
import {
  ChangesPageShape,
  ChangesRequest,
  SiteTimelineRequest,
  SiteTimelineShape,
  toSiteTimeline,
} from '../../services/changes/changes.contract';
import type { AnyRoute } from '../route';

/** The connection GraphQL returns, as REST's page: the nodes, and moreAfter while more follow. */
function presentPage(connection: TechnologyChangeConnection) {
  return {
    changes: connection.nodes.map((c) => ({
      id: c.id,
      domain: c.domain,
      technology: c.technology,
      name: c.name,
      kind: c.kind,
      ...(c.fromVersion ? { fromVersion: c.fromVersion } : {}),
      ...(c.toVersion ? { toVersion: c.toVersion } : {}),
      at: c.at,
      ...(c.fingerprintsVersion ? { fingerprintsVersion: c.fingerprintsVersion } : {}),
    })),
    ...(connection.pageInfo.hasNextPage && connection.pageInfo.endCursor
      ? { moreAfter: connection.pageInfo.endCursor }
      : {}),
  };
}

export const CHANGES_ROUTES: AnyRoute[] = [
  {
    method: 'GET',
    path: '/v2/changes',
    operationId: 'listChanges',
    summary: 'The change feed (1 credit per 10 changes returned, rounded up; an empty page is free)',
    description:
      'Technologies added to, removed from, or changing version on the sites of the index, in the order the ' +
      'analyses recorded them (oldest first), with the fingerprint version that saw each change. A ' +
      'technology is removed only when an analysis read every page where it had been found and found it on ' +
      'none (a one-page analysis does not remove what a crawl found elsewhere; a failed fetch removes ' +
      'nothing). Every filter given narrows the feed; `technologies` and `categories` together match ' +
      'either. Paging: pass `moreAfter` (or any change id) as `after`.',
    tag: 'Change feed',
    request: ChangesRequest,
    resolver: [ChangeResolver, 'changes'],
    args: (values: Record<string, unknown>) => {
      const { first, after, ...filter } = values;
      return [filter, first, after];
    },
    present: (connection: TechnologyChangeConnection) => ({ status: 200, body: presentPage(connection) }),
    responses: {
      200: { description: 'One page of matching changes, oldest first', shape: ChangesPageShape },
    },
  },
  {
    method: 'GET',
    path: '/v2/sites/{domain}',
    operationId: 'getSiteTimeline',
    summary: "A site's technology timeline (1 credit when the site is in the index)",
    description:
      'Every technology the index has seen on the site, live ones first: first and last seen, whether it is ' +
      'on the site now, when it was last removed, the pages whose latest reading found it, and each ' +
      "version's first and last sighting. An extension path: Lookup v2's published shape is unchanged.",
    tag: 'Change feed',
    request: SiteTimelineRequest,
    pathParams: ['domain'],
    resolver: [SiteResolver, 'site'],
    present: (site: IndexedSite | null, values: { domain?: string }) => {
      if (!site) throw new NotFoundError(`${values.domain ?? 'the site'} is not in the index`);
      return { status: 200, body: toSiteTimeline(site) };
    },
    responses: {
      200: { description: 'The site and its timelines', shape: SiteTimelineShape },
      404: { description: 'The site is not in the index (not charged)', shape: 'error' },
    },
  },
];
