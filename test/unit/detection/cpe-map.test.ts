import { readFileSync } from 'node:fs';

import {
  DetectionEngine,
  defaultFingerprintDirectory,
  loadCorrectedFingerprints,
} from '../../../src/detection';
import { isCpe23, splitCpe23, versionedCpes } from '../../../src/detection/cpe';
import { CPE_MAP_FILE, readCpeMap } from '../../../src/detection/cpe-map';
import { readPack } from '../../../src/detection/pack-files';
import { parsePack } from '../../../src/detection/raw-pack';

const table = readCpeMap();
const upstream = parsePack(readPack(defaultFingerprintDirectory()));
// compiled once for the two tests that need it (a compile is most of this file's time)
let corrected: ReturnType<typeof loadCorrectedFingerprints> | undefined;
const correctedSet = () => (corrected ??= loadCorrectedFingerprints());

describe('the CPE table (data/cpe/cpe-map.json)', () => {
  it('has well-formed entries: a CPE 2.3 name with version ANY, and its source', () => {
    expect(table.size).toBeGreaterThan(0);
    for (const [name, entry] of table) {
      expect([name, isCpe23(entry.cpe)]).toEqual([name, true]);
      expect([name, splitCpe23(entry.cpe)?.[3]]).toEqual([name, '*']);
      expect(entry.source).toMatch(
        /^https:\/\/nvd\.nist\.gov\/(vuln\/detail\/CVE-\d{4}-\d+|products\/cpe\/search\/results\?namingFormat=2\.3&keyword=cpe%3A2\.3%3A[aho]%3A[^%]+%3A[^%]+)$/,
      );
      if (!entry.source.includes('/vuln/detail/')) {
        const [, vendor, product] = splitCpe23(entry.cpe) as string[];
        expect(entry.source.endsWith(`%3A${vendor}%3A${product}`)).toBe(true);
      }
    }
  });

  it('names each technology once, and each technology is in the built-in pack', () => {
    const text = readFileSync(CPE_MAP_FILE, 'utf8');
    const keys = [...text.matchAll(/^ {4}"([^"]+)": \{$/gm)].map((m) => m[1]);
    expect(keys.length).toBe(table.size);
    expect(new Set(keys).size).toBe(keys.length);
    for (const name of table.keys()) expect([name, name in upstream.technologies]).toEqual([name, true]);
  });

  it('adds CPEs upstream lacks, and corrects only the value it says it replaces', () => {
    for (const [name, entry] of table) {
      const before = upstream.technologies[name]?.cpe;
      // an addition for a technology upstream has since named, or a correction of a value upstream
      // no longer has, is reviewed (and dropped once upstream agrees)
      expect([name, before]).toEqual([name, entry.replaces]);
      expect(entry.cpe).not.toBe(before);
      if (entry.replaces) expect(entry.source).toMatch(/\/vuln\/detail\/CVE-/);
    }
  });

  it('gives every compiled set its CPEs, with or without the corrections pack', () => {
    for (const fingerprints of [correctedSet(), loadCorrectedFingerprints({ corrections: false })]) {
      for (const [name, entry] of table) expect(fingerprints.technologyByName(name)?.cpe).toBe(entry.cpe);
    }
  });

  it('versions the CPEs the table gives what a page shows, additions and corrections alike', () => {
    const engine = new DetectionEngine(correctedSet());
    const html = `<!DOCTYPE html><html><head>
      <meta name="generator" content="Elementor 3.5.5">
      <!-- This site is optimized with the Yoast SEO plugin v17.3 - https://yoast.com/wordpress/plugins/seo/ -->
      <link rel="stylesheet" href="/wp-content/themes/astra/assets/css/minified/main.min.css?ver=4.1.5">
      <script src="/wp-includes/js/jquery/jquery.min.js?ver=3.6.0"></script>
      <script src="/assets/jquery-ui-1.12.1.min.js"></script>
      <script src="/wp-content/plugins/contact-form-7/includes/js/index.js?ver=5.3.1"></script>
      <script src="/wp-content/themes/astra/assets/js/minified/frontend.min.js?ver=4.1.5"></script>
      </head><body><app-root ng-version="11.0.5"></app-root></body></html>`;
    const result = engine.analyze({
      url: 'https://shop.example/',
      html,
      headers: { 'x-powered-by': ['Express'] },
    });
    const versioned = Object.fromEntries(
      result.technologies.map((t) => [t.name, { cpe: t.cpe, versioned: versionedCpes(t.cpe, t.versions) }]),
    );
    expect(versioned['jQuery UI']?.versioned).toEqual([
      'cpe:2.3:a:jqueryui:jquery_ui:1.12.1:*:*:*:*:jquery:*:*',
    ]);
    expect(versioned['Contact Form 7']?.versioned).toEqual([
      'cpe:2.3:a:rocklobster:contact_form_7:5.3.1:*:*:*:*:wordpress:*:*',
    ]);
    expect(versioned['Yoast SEO']?.versioned).toEqual([
      'cpe:2.3:a:yoast:yoast_seo:17.3:*:*:*:*:wordpress:*:*',
    ]);
    expect(versioned.Elementor?.versioned).toEqual([
      'cpe:2.3:a:elementor:website_builder:3.5.5:*:*:*:*:wordpress:*:*',
    ]);
    expect(versioned.Astra?.versioned).toEqual([
      'cpe:2.3:a:brainstormforce:astra:4.1.5:*:*:*:*:wordpress:*:*',
    ]);
    expect(versioned.Angular?.versioned).toEqual(['cpe:2.3:a:angular:angular:11.0.5:*:*:*:*:*:*:*']);
    // no version shown: the corrected CPE, and no versioned one
    expect(versioned.Express).toEqual({
      cpe: 'cpe:2.3:a:openjsf:express:*:*:*:*:*:node.js:*:*',
      versioned: [],
    });
  });
});
