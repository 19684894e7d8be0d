import { NotFoundError } from '../../errors';
import { SERVICE_PACKAGE } from '../../platform/service-version';
import { SbomResolver, type SbomResult } from '../../resolvers/sbom.resolver';
import { cycloneDxJson, SbomRequest, SbomShape } from '../../services/sbom/sbom.contract';
import type { AnyRoute } from '../route';

export const SBOM_ROUTES: AnyRoute[] = [
  {
    method: 'GET',
    path: '/v2/sbom',
    operationId: 'getSbom',
    summary: 'A CycloneDX 1.6 SBOM of what the index knows a site runs',
    description:
      'Components with name, version, CPE (versioned when a version is known), purl where a package mapping exists, ' +
      'and evidence (identity and the pages). Answered from the index only: 1 credit, as a stored lookup; ' +
      'a site the index does not know gives 404 (counted toward the quota, not charged). An extension of this service.',
    tag: 'Lookup',
    request: SbomRequest,
    resolver: [SbomResolver, 'sbom'],
    present: (result: SbomResult | null, values: { url: string }) => {
      if (!result) throw new NotFoundError(`No stored result for ${values.url}`);
      return {
        status: 200,
        json: cycloneDxJson(result.source, {
          toolName: SERVICE_PACKAGE.name,
          toolVersion: SERVICE_PACKAGE.version,
        }),
      };
    },
    responses: {
      200: { description: 'The CycloneDX 1.6 JSON document', shape: SbomShape },
      404: { description: 'The index does not know the site (counted toward the quota)', shape: 'error' },
    },
  },
];
