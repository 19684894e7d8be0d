import { createWriteStream } from 'node:fs';

/**
 * A generated NVD CVE API 2.0 feed as large as asked: records shaped like the yearly feeds' (an
 * English description of 900 characters, a CVSS v3.1 metric, one vulnerable CPE criterion with a
 * version range, a reference), for measuring and testing that an import's memory does not grow
 * with the file.
 */
export function generatedNvdItem(n: number): string {
  const version = `${1 + (n % 9)}.${n % 20}.${n % 7}`;
  return JSON.stringify({
    cve: {
      id: `CVE-2024-${100000 + n}`,
      sourceIdentifier: 'cve@mitre.org',
      published: '2024-03-01T10:15:00.000',
      lastModified: '2024-06-01T10:15:00.000',
      vulnStatus: 'Analyzed',
      descriptions: [
        { lang: 'en', value: `Generated record ${n}: `.padEnd(900, 'lorem ipsum dolor sit amet ') },
      ],
      metrics: {
        cvssMetricV31: [
          {
            source: 'nvd@nist.gov',
            type: 'Primary',
            cvssData: {
              version: '3.1',
              vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
              baseScore: 6.1,
              baseSeverity: 'MEDIUM',
            },
          },
        ],
      },
      configurations: [
        {
          nodes: [
            {
              operator: 'OR',
              negate: false,
              cpeMatch: [
                {
                  vulnerable: true,
                  criteria: `cpe:2.3:a:vendor${n % 500}:product${n % 2000}:*:*:*:*:*:*:*:*`,
                  versionEndExcluding: version,
                },
              ],
            },
          ],
        },
      ],
      references: [{ url: `https://example.org/advisories/${n}`, source: 'cve@mitre.org' }],
    },
  });
}

/** Writes a feed of at least `megabytes` MB of JSON to `path`, streaming; returns the number of records. */
export async function writeGeneratedNvdFeed(path: string, megabytes: number): Promise<number> {
  const out = createWriteStream(path);
  const write = (text: string) =>
    new Promise<void>((resolve) => (out.write(text) ? resolve() : out.once('drain', () => resolve())));
  await write(
    '{"resultsPerPage":0,"startIndex":0,"totalResults":0,"format":"NVD_CVE","version":"2.0","timestamp":"2026-11-27T00:00:00.000","vulnerabilities":[',
  );
  let written = 0;
  let n = 0;
  while (written < megabytes * 1_048_576) {
    const text = (n > 0 ? ',' : '') + generatedNvdItem(n++);
    written += text.length;
    await write(text);
  }
  await write(']}');
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  return n;
}
