import { randomUUID } from 'node:crypto';
import { Enums, Models, Serialize, Spec } from '@cyclonedx/cyclonedx-library';
import { z } from 'zod';
import { field } from '../platform/request-schema';

/** GET /v2/sbom/. */
export const SbomRequest = z.object({
  url: field.url({ required: true, description: 'The site whose SBOM to give, from the index' }),
});

/** One component of a site's SBOM: a technology the index holds for the site, at one version. */
export interface SbomComponent {
  /** `slug` or `slug@version`: unique in the document (bom-ref). */
  ref: string;
  slug: string;
  name: string;
  /** The detected version, null when none was detected. */
  version: string | null;
  /** The technology's CPE (version ANY), null when neither the fingerprints nor the CPE table give one. */
  cpe: string | null;
  /** The CPE with this version in its version slot, null without a CPE or a version. */
  versionedCpe: string | null;
  /** Package URL (with the version when known), null for a technology that is no package. */
  purl: string | null;
  type: 'application' | 'framework' | 'library' | 'operating-system';
  categories: string[];
  /** 0-100 */
  confidence: number;
  firstSeenAt: Date;
  lastSeenAt: Date;
  /** The fingerprint version of the analysis that last confirmed it ('' before versions were recorded). */
  fingerprintsVersion: string;
  /** URLs of the pages whose latest reading found it. */
  pages: string[];
}

/** What the index knows a site runs: the service's answer, as GraphQL gives it and REST renders it. */
export interface SiteSbom {
  /** The site's home page URL. */
  url: string;
  hostname: string;
  lastAnalyzedAt: Date;
  /** When the document was made (the service's clock). */
  generatedAt: Date;
  components: SbomComponent[];
  /**
   * Each component's known vulnerabilities by its ref (the VEX section); null when no vulnerability
   * data is wired in (see VulnerabilitiesOf), and then the document has no vulnerabilities.
   */
  vulnerabilities: ReadonlyMap<string, readonly SbomVulnerability[]> | null;
}

/**
 * A known vulnerability of a component, for the SBOM's VEX section. The vulnerability import
 * supplies them through a VulnerabilitiesOf function; without one the document has no section.
 */
export interface SbomVulnerability {
  id: string;
  /** e.g. { name: 'NVD', url: 'https://nvd.nist.gov/vuln/detail/CVE-…' } */
  source?: { name: string; url?: string };
  description?: string;
  ratings?: {
    score?: number;
    severity?: 'critical' | 'high' | 'medium' | 'low' | 'none' | 'unknown';
    method?: 'CVSSv31' | 'CVSSv4';
    vector?: string;
  }[];
  published?: Date;
  updated?: Date;
  /** certain: the detected version is in an affected range; possible: no version was detected. */
  match: 'certain' | 'possible';
}

/**
 * The hook of the VEX section: the components' vulnerabilities by ref, or null when no vulnerability
 * data is imported. The vulnerability import provides it to SbomService (services.ts).
 */
export type VulnerabilitiesOf = (
  components: readonly SbomComponent[],
) => Promise<ReadonlyMap<string, readonly SbomVulnerability[]> | null>;

const SEVERITIES: Record<
  NonNullable<NonNullable<SbomVulnerability['ratings']>[number]['severity']>,
  Enums.Vulnerability.Severity
> = {
  critical: Enums.Vulnerability.Severity.Critical,
  high: Enums.Vulnerability.Severity.High,
  medium: Enums.Vulnerability.Severity.Medium,
  low: Enums.Vulnerability.Severity.Low,
  none: Enums.Vulnerability.Severity.None,
  unknown: Enums.Vulnerability.Severity.Unknown,
};

const COMPONENT_TYPES: Record<SbomComponent['type'], Enums.ComponentType> = {
  application: Enums.ComponentType.Application,
  framework: Enums.ComponentType.Framework,
  library: Enums.ComponentType.Library,
  'operating-system': Enums.ComponentType.OperatingSystem,
};

/** Namespace of this service's CycloneDX properties (the CycloneDX property taxonomy's advice). */
const PROPERTY = 'technology-intelligence';

const normalizer = new Serialize.JSON.Normalize.Factory(Spec.Spec1dot6).makeForBom();

/**
 * The site's SBOM as a CycloneDX 1.6 JSON document, built with the CycloneDX project's library. The
 * library (10.3) models a component's evidence as licenses and copyright only, so the identity
 * evidence (what detected the name and version, with what confidence) and the occurrences (the pages)
 * are added to each normalised component by its bom-ref.
 */
export function cycloneDxJson(sbom: SiteSbom, options: { toolName: string; toolVersion: string }): string {
  const bom = new Models.Bom({ serialNumber: `urn:uuid:${randomUUID()}` });
  bom.metadata.timestamp = sbom.generatedAt;
  bom.metadata.tools.components.add(
    new Models.Component(Enums.ComponentType.Application, options.toolName, { version: options.toolVersion }),
  );
  bom.metadata.component = new Models.Component(Enums.ComponentType.Application, sbom.hostname, {
    bomRef: 'site',
    description: `What the index knows ${sbom.url} runs (last analysed ${sbom.lastAnalyzedAt.toISOString()})`,
    externalReferences: new Models.ExternalReferenceRepository([
      new Models.ExternalReference(sbom.url, Enums.ExternalReferenceType.Website),
    ]),
  });
  const byRef = new Map<string, Models.Component>();
  for (const c of sbom.components) {
    const component = new Models.Component(COMPONENT_TYPES[c.type], c.name, {
      bomRef: c.ref,
      ...(c.version !== null ? { version: c.version } : {}),
      ...((c.versionedCpe ?? c.cpe) ? { cpe: (c.versionedCpe ?? c.cpe) as string } : {}),
      ...(c.purl ? { purl: c.purl } : {}),
      properties: new Models.PropertyRepository([
        new Models.Property(`${PROPERTY}:slug`, c.slug),
        ...c.categories.map((name) => new Models.Property(`${PROPERTY}:category`, name)),
        new Models.Property(`${PROPERTY}:firstSeenAt`, c.firstSeenAt.toISOString()),
        new Models.Property(`${PROPERTY}:lastSeenAt`, c.lastSeenAt.toISOString()),
      ]),
    });
    bom.components.add(component);
    byRef.set(c.ref, component);
  }
  if (sbom.vulnerabilities) addVulnerabilities(bom, sbom, byRef, sbom.vulnerabilities);
  const json = normalizer.normalize(bom, { sortLists: false }) as {
    components?: { 'bom-ref'?: string; evidence?: unknown }[];
  };
  const byBomRef = new Map(sbom.components.map((c) => [c.ref, c]));
  for (const normalized of json.components ?? []) {
    const c = byBomRef.get(normalized['bom-ref'] ?? '');
    if (c) normalized.evidence = evidenceOf(c);
  }
  return JSON.stringify(json);
}

/** CycloneDX 1.6 evidence: the identity (name, and version when detected) and the pages it was found on. */
function evidenceOf(c: SbomComponent): Record<string, unknown> {
  const confidence = c.confidence / 100;
  const methods = [
    {
      technique: 'dynamic-analysis',
      confidence,
      value: `Fingerprints${c.fingerprintsVersion ? ` ${c.fingerprintsVersion}` : ''} matched on the served site, last ${c.lastSeenAt.toISOString()}`,
    },
  ];
  const identity: Record<string, unknown>[] = [
    { field: 'name', confidence, concludedValue: c.name, methods },
  ];
  if (c.version !== null) identity.push({ field: 'version', confidence, concludedValue: c.version, methods });
  if (c.versionedCpe ?? c.cpe)
    identity.push({ field: 'cpe', confidence, concludedValue: c.versionedCpe ?? c.cpe, methods });
  if (c.purl) identity.push({ field: 'purl', confidence, concludedValue: c.purl, methods });
  return {
    identity,
    ...(c.pages.length > 0 ? { occurrences: c.pages.map((location) => ({ location })) } : {}),
  };
}

function addVulnerabilities(
  bom: Models.Bom,
  sbom: SiteSbom,
  byRef: ReadonlyMap<string, Models.Component>,
  vulnerabilities: ReadonlyMap<string, readonly SbomVulnerability[]>,
): void {
  for (const c of sbom.components) {
    const component = byRef.get(c.ref) as Models.Component;
    for (const v of vulnerabilities.get(c.ref) ?? []) {
      const status =
        v.match === 'certain'
          ? Enums.Vulnerability.AffectStatus.Affected
          : Enums.Vulnerability.AffectStatus.Unknown;
      bom.vulnerabilities.add(
        new Models.Vulnerability.Vulnerability({
          id: v.id,
          ...(v.source ? { source: new Models.Vulnerability.Source(v.source) } : {}),
          ...(v.description ? { description: v.description } : {}),
          ...(v.published ? { published: v.published } : {}),
          ...(v.updated ? { updated: v.updated } : {}),
          ratings: new Models.Vulnerability.RatingRepository(
            (v.ratings ?? []).map(
              (r) =>
                new Models.Vulnerability.Rating({
                  ...(r.score !== undefined ? { score: r.score } : {}),
                  ...(r.severity ? { severity: SEVERITIES[r.severity] } : {}),
                  ...(r.method ? { method: Enums.Vulnerability.RatingMethod[r.method] } : {}),
                  ...(r.vector ? { vector: r.vector } : {}),
                }),
            ),
          ),
          analysis: new Models.Vulnerability.Analysis({
            state:
              v.match === 'certain'
                ? Enums.Vulnerability.AnalysisState.Exploitable
                : Enums.Vulnerability.AnalysisState.InTriage,
            detail:
              v.match === 'certain'
                ? `The detected version ${c.version ?? ''} is in an affected range`
                : 'No version was detected: possibly affected',
          }),
          affects: new Models.Vulnerability.AffectRepository([
            new Models.Vulnerability.Affect(component.bomRef, {
              versions: new Models.Vulnerability.AffectedVersionRepository(
                c.version !== null
                  ? [new Models.Vulnerability.AffectedSingleVersion(c.version, { status })]
                  : [],
              ),
            }),
          ]),
        }),
      );
    }
  }
}

/** GET /v2/sbom/'s answer, as documented (the CycloneDX 1.6 JSON schema has the details). */
export const SbomShape = z
  .looseObject({
    $schema: z.string(),
    bomFormat: z.literal('CycloneDX'),
    specVersion: z.literal('1.6'),
    serialNumber: z.string().describe('urn:uuid:…, new for every document'),
    version: z.number().int(),
    metadata: z.looseObject({}).describe('timestamp, the tool, and the site as metadata.component'),
    components: z
      .array(
        z.looseObject({
          type: z.string(),
          name: z.string(),
          version: z.string().optional(),
          cpe: z.string().optional().describe('The versioned CPE when a version was detected, else the CPE'),
          purl: z.string().optional(),
          evidence: z.looseObject({}).describe('identity (name, version, cpe, purl) and occurrences (pages)'),
        }),
      )
      .optional(),
    vulnerabilities: z
      .array(z.looseObject({}))
      .optional()
      .describe('VEX: when vulnerability data is imported'),
  })
  .describe('A CycloneDX 1.6 JSON document (https://cyclonedx.org/docs/1.6/json/)');
