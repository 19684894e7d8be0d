import {
  ExposedSitesPageShape,
  ExposedSitesShape,
  ExposureItemShape,
  TechnologyVulnerabilityShape,
  VulnerabilityShape,
} from '../services/vulns/exposure.contract';
import { objectTypeOf } from './zod-graphql';

/** GET /v2/exposure/'s items: the same fields on GraphQL. */
export const ExposureItemType = objectTypeOf(
  ExposureItemShape,
  'SiteExposure',
  "A site's live technologies with known vulnerabilities, from the index",
);

/** A vulnerability record (merged with the records that alias it); affectedSites is a field resolver. */
export const VulnerabilityType = objectTypeOf(
  VulnerabilityShape,
  'Vulnerability',
  'An imported vulnerability record',
);

/** A vulnerability as it affects one technology of a site: certain or possible, with the fixed versions. */
export const TechnologyVulnerabilityType = objectTypeOf(
  TechnologyVulnerabilityShape,
  'TechnologyVulnerability',
  'A vulnerability of a technology at the version the index holds',
);

/** A page of the sites running an affected version (Vulnerability.affectedSites). */
export const ExposedSitesType = objectTypeOf(
  ExposedSitesShape,
  'ExposedSites',
  'Indexed sites running an affected version, a page at a time (moreAfter while more follow)',
);

/** GET /v2/exposure/sites/: the vulnerability and one page of sites. */
export const ExposedSitesPageType = objectTypeOf(
  ExposedSitesPageShape,
  'ExposedSitesPage',
  'The vulnerability and the indexed sites running an affected version, a page at a time',
);
