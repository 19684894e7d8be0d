import { join } from 'node:path';
import { ChangingSite, startChangingSite, wordpressHome } from '../changes/changing-site';

/** The small NVD 2.0 feed and the folder of OSV records the exposure tests import. */
export const VULN_FIXTURES = join(__dirname, '..', '..', 'fixtures', 'vulns');
export const NVD_FIXTURE = join(VULN_FIXTURES, 'nvdcve-2.0-small.json');
export const OSV_FIXTURE = join(VULN_FIXTURES, 'osv');

const script = (file: string) => `<script src="/js/${file}"></script>`;

/**
 * The real local sites the exposure tests analyse, each serving known versions:
 * a: WordPress 6.4.2 with jQuery 3.4.1; b: WordPress 6.5.0 with lodash (no version detected);
 * c: jQuery 3.7.1 (after the fix of CVE-2020-11022).
 */
export async function startExposureSites(): Promise<{ a: ChangingSite; b: ChangingSite; c: ChangingSite }> {
  const a = await startChangingSite({ '/': wordpressHome('6.4.2', script('jquery-3.4.1.min.js')) });
  const b = await startChangingSite({ '/': wordpressHome('6.5.0', script('lodash.min.js')) }, '127.0.0.2');
  const c = await startChangingSite(
    {
      '/': `<!doctype html><html><head><title>C</title>${script('jquery-3.7.1.min.js')}</head><body>c</body></html>`,
    },
    '127.0.0.3',
  );
  return { a, b, c };
}

/** A GET /v2/exposure/ item, as far as the tests of monitors' vulnerability changes read it. */
export interface ExposureAnswerItem {
  domain?: string;
  technologies: { technology: string; version?: string; vulnerabilities: { id: string; match: string }[] }[];
}

/**
 * The vulnerabilities GET /v2/exposure/ reports, one line each as a monitor's vulnerability change
 * would say it: `host technology@version id:match`, sorted.
 */
export function exposureLines(items: readonly ExposureAnswerItem[]): string[] {
  return items
    .flatMap((item) =>
      item.technologies.flatMap((t) =>
        t.vulnerabilities.map((v) => `${item.domain} ${t.technology}@${t.version ?? ''} ${v.id}:${v.match}`),
      ),
    )
    .sort();
}
