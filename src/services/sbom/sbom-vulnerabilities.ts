import type { TechnologyVulnerability } from '../vulns/exposure.contract';
import type { SbomComponent, SbomVulnerability, VulnerabilitiesOf } from './sbom.contract';

type Severity = NonNullable<NonNullable<SbomVulnerability['ratings']>[number]['severity']>;
const SEVERITIES: Record<string, Severity> = {
  CRITICAL: 'critical',
  HIGH: 'high',
  MEDIUM: 'medium',
  LOW: 'low',
  NONE: 'none',
};

/** An exposure answer as the SBOM's VEX entry: NVD ids link to NVD, others to OSV. */
export function sbomVulnerabilityOf(v: TechnologyVulnerability): SbomVulnerability {
  const nvd = v.id.startsWith('CVE-');
  const method = v.vector?.startsWith('CVSS:4.') ? 'CVSSv4' : v.vector ? 'CVSSv31' : undefined;
  return {
    id: v.id,
    source: nvd
      ? { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${v.id}` }
      : { name: 'OSV', url: `https://osv.dev/vulnerability/${v.id}` },
    description: v.summary,
    ratings:
      v.score !== undefined || v.severity
        ? [
            {
              ...(v.score !== undefined ? { score: v.score } : {}),
              severity: (v.severity && SEVERITIES[v.severity.toUpperCase()]) || 'unknown',
              ...(method ? { method } : {}),
              ...(v.vector ? { vector: v.vector } : {}),
            },
          ]
        : undefined,
    published: v.published !== undefined ? new Date(v.published * 1000) : undefined,
    updated: new Date(v.modified * 1000),
    match: v.match,
  };
}

/**
 * The SBOM's VEX hook over the imported vulnerability data: each component's vulnerabilities at
 * its version (none detected: the possible ones), read for all components at once, or null when
 * nothing is imported, so that a deployment without data gets no empty section.
 */
export function vulnerabilitiesFromExposure(exposure: {
  vulnerabilitiesOfAll(
    technologies: readonly { slug: string; versions: readonly string[] }[],
  ): Promise<{ imported: boolean; found: TechnologyVulnerability[][] }>;
}): VulnerabilitiesOf {
  return async (components: readonly SbomComponent[]) => {
    const { imported, found } = await exposure.vulnerabilitiesOfAll(
      components.map((c) => ({ slug: c.slug, versions: c.version ? [c.version] : [] })),
    );
    if (!imported) return null;
    const out = new Map<string, SbomVulnerability[]>();
    components.forEach((component, i) => {
      if (found[i].length > 0) out.set(component.ref, found[i].map(sbomVulnerabilityOf));
    });
    return out;
  };
}
