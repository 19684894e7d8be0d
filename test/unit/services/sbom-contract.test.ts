import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { cycloneDxJson, type SbomComponent, type SiteSbom } from '../../../src/services/sbom/sbom.contract';

const AT = new Date(Date.UTC(2026, 10, 1));

function component(over: Partial<SbomComponent>): SbomComponent {
  return {
    ref: 'jquery@1.12.4',
    slug: 'jquery',
    name: 'jQuery',
    version: '1.12.4',
    cpe: 'cpe:2.3:a:jquery:jquery:*:*:*:*:*:*:*:*',
    versionedCpe: 'cpe:2.3:a:jquery:jquery:1.12.4:*:*:*:*:*:*:*',
    purl: 'pkg:npm/jquery@1.12.4',
    type: 'library',
    categories: ['JavaScript libraries'],
    confidence: 100,
    firstSeenAt: AT,
    lastSeenAt: AT,
    fingerprintsVersion: '2026.11.27.1',
    pages: ['https://shop.test/'],
    ...over,
  };
}

function sbomOf(components: SbomComponent[], vulnerabilities: SiteSbom['vulnerabilities'] = null): SiteSbom {
  return {
    url: 'https://shop.test/',
    hostname: 'shop.test',
    lastAnalyzedAt: AT,
    generatedAt: AT,
    components,
    vulnerabilities,
  };
}

const validator = new Validation.JsonStrictValidator(Spec.Version.v1dot6);
const render = (sbom: SiteSbom) =>
  cycloneDxJson(sbom, { toolName: 'technology-intelligence', toolVersion: '1.0.0' });

describe('the CycloneDX rendering of a site SBOM', () => {
  it('is valid with a component without version, CPE, purl or pages, and an empty site', async () => {
    const bare = component({
      ref: 'nginx',
      slug: 'nginx',
      name: 'Nginx',
      version: null,
      cpe: null,
      versionedCpe: null,
      purl: null,
      type: 'application',
      categories: [],
      fingerprintsVersion: '',
      pages: [],
    });
    const json = render(sbomOf([bare, component({})]));
    expect(await validator.validate(json)).toBeNull();
    const doc = JSON.parse(json);
    expect(doc.components[0]).toMatchObject({ name: 'Nginx', evidence: { identity: [{ field: 'name' }] } });
    expect(doc.components[0].version).toBeUndefined();
    expect(doc.components[0].evidence.occurrences).toBeUndefined();
    expect(await validator.validate(render(sbomOf([])))).toBeNull();
  });

  it('gives the VEX section from the vulnerabilities hook: affected when certain, unknown when possible', async () => {
    const versioned = component({});
    const unversioned = component({
      ref: 'lodash',
      slug: 'lodash',
      name: 'Lodash',
      version: null,
      versionedCpe: null,
      purl: 'pkg:npm/lodash',
    });
    const json = render(
      sbomOf(
        [versioned, unversioned],
        new Map([
          [
            versioned.ref,
            [
              {
                id: 'CVE-2020-11022',
                source: { name: 'NVD', url: 'https://nvd.nist.gov/vuln/detail/CVE-2020-11022' },
                description: 'XSS in htmlPrefilter',
                ratings: [
                  {
                    score: 6.1,
                    severity: 'medium' as const,
                    method: 'CVSSv31' as const,
                    vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
                  },
                ],
                published: AT,
                match: 'certain' as const,
              },
            ],
          ],
          [unversioned.ref, [{ id: 'CVE-2021-23337', match: 'possible' as const }]],
        ]),
      ),
    );
    expect(await validator.validate(json)).toBeNull();
    const doc = JSON.parse(json);
    expect(doc.vulnerabilities).toHaveLength(2);
    const [certain, possible] = doc.vulnerabilities;
    expect(certain).toMatchObject({
      id: 'CVE-2020-11022',
      ratings: [{ score: 6.1, severity: 'medium', method: 'CVSSv31' }],
      analysis: { state: 'exploitable' },
      affects: [{ ref: 'jquery@1.12.4', versions: [{ version: '1.12.4', status: 'affected' }] }],
    });
    expect(possible).toMatchObject({
      id: 'CVE-2021-23337',
      analysis: { state: 'in_triage' },
      affects: [{ ref: 'lodash' }],
    });
  });
});
