import { ChangeResolver } from '../../resolvers/change.resolver';
import type { TechnologyChangeConnection } from '../../schema/change.type';
import { ChangesPageShape, ChangesRequest } from '../../services/changes/changes.contract';
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
      const { limit, after, ...filter } = values;
      return [filter, limit, after];
    },
    present: (connection: TechnologyChangeConnection) => ({ status: 200, body: presentPage(connection) }),
    responses: {
      200: { description: 'One page of matching changes, oldest first', shape: ChangesPageShape },
    },
  },
];
