import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DetectionEngine, loadFingerprints, type DetectionInput } from '../../../src/detection';

/** The realistic pages of test/fixtures/pages (see generate-pages.js there) with the real fingerprints. */
const dir = join(__dirname, '../../fixtures/pages');
const pages = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => {
    const { expect: expected, ...facts } = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    const html = readFileSync(join(dir, f.replace(/\.json$/, '.html')), 'utf8');
    return { name: f.replace(/\.json$/, ''), input: { ...facts, html } as DetectionInput, expected };
  });

const engine = new DetectionEngine(loadFingerprints());

describe('accuracy on realistic pages', () => {
  it('has a corpus of at least 20 pages of 20-500 KB', () => {
    expect(pages.length).toBeGreaterThanOrEqual(20);
    for (const page of pages) {
      expect(page.input.html.length).toBeGreaterThanOrEqual(20 * 1024);
      expect(page.input.html.length).toBeLessThanOrEqual(500 * 1024);
    }
  });

  it.each(pages.map((p) => [p.name, p] as const))(
    '%s: names, versions and implied technologies',
    (_name, page) => {
      const result = engine.analyze(page.input);
      const byName = new Map(result.technologies.map((t) => [t.name, t]));
      for (const want of page.expected.technologies as {
        name: string;
        version?: string;
        implied?: boolean;
      }[]) {
        const got = byName.get(want.name);
        expect({ name: want.name, found: Boolean(got) }).toEqual({ name: want.name, found: true });
        if (want.version !== undefined) expect({ name: want.name, version: got?.version }).toEqual(want);
        if (want.implied !== undefined)
          expect({ name: want.name, implied: got?.implied }).toEqual({
            name: want.name,
            implied: want.implied,
          });
      }
      for (const t of result.technologies) {
        expect(t.confidence).toBeGreaterThan(0);
        expect(t.confidence).toBeLessThanOrEqual(100);
        expect(t.evidence.length).toBeGreaterThan(0);
        expect(t.slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      }
    },
  );
});

describe('traps of the data, with the real fingerprints', () => {
  const base = { url: 'https://www.example.org/', html: '<html><body><p>plain</p></body></html>' };

  it('finds WooCommerce and Elementor only once WordPress is found (requires, second pass)', () => {
    const plugins =
      '<script src="/wp-content/plugins/woocommerce/assets/js/frontend/woocommerce.min.js?ver=8.2.1"></script>' +
      '<script src="/wp-content/plugins/elementor/assets/js/frontend-modules.min.js?ver=3.16.4"></script>';
    const alone = engine.analyze({
      ...base,
      html: `<html><head>${plugins}</head></html>`.replace(/wp-content/g, 'assets'),
    });
    expect(alone.technologies.map((t) => t.name)).not.toContain('WooCommerce');
    const withWp = engine.analyze({ ...base, html: `<html><head>${plugins}</head></html>` });
    const names = withWp.technologies.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['WordPress', 'WooCommerce', 'Elementor']));
    expect(withWp.technologies.find((t) => t.name === 'WooCommerce')?.version).toBe('8.2.1');
    expect(withWp.technologies.find((t) => t.name === 'Elementor')?.version).toBe('3.16.4');
  });

  it('matches regex cookie names of the data (Drupal SESS…, connect.sid, ASP.NET_SessionId)', () => {
    const result = engine.analyze({
      ...base,
      cookies: {
        SESS0123456789abcdef0123456789abcdef: ['x'],
        'connect.sid': ['s%3Aabc'],
        'ASP.NET_SessionId': ['abc'],
      },
    });
    expect(result.technologies.map((t) => t.name)).toEqual(
      expect.arrayContaining(['Drupal', 'Express', 'Microsoft ASP.NET', 'PHP', 'Node.js']),
    );
  });

  it('matches patterns that contain an escaped \\/ (109 were unmatchable in the reference engine)', () => {
    const result = engine.analyze({ ...base, url: 'https://tenant.content-hub.acquia.com/' });
    expect(result.technologies.map((t) => t.name)).toContain('Acquia Content Hub');
  });

  it('repairs and reports the url patterns that lack the colon', () => {
    const fp = engine.fingerprints;
    const lacking = fp.warnings.filter((w) => w.kind === 'url').map((w) => w.technology);
    expect(lacking).toEqual(
      expect.arrayContaining(['Shopify', 'MemberStack', 'Reactive', 'Sirclo', 'ZenBasket']),
    );
    const result = engine.analyze({ ...base, url: 'https://salt-and-pine.myshopify.com/' });
    expect(result.technologies.map((t) => t.name)).toContain('Shopify');
  });

  it('counts every meta tag, not only the last one per name', () => {
    const html =
      '<html><head><meta name="generator" content="WordPress 6.4.2"><meta name="generator" content="WooCommerce 8.2.1">' +
      '<meta name="generator" content="Elementor 3.16.4; features: a"></head></html>';
    const names = engine.analyze({ ...base, html }).technologies.map((t) => `${t.name} ${t.version}`);
    expect(names).toEqual(
      expect.arrayContaining(['WordPress 6.4.2', 'WooCommerce 8.2.1', 'Elementor 3.16.4']),
    );
  });

  it('uses DNS records, the certificate issuer and robots.txt', () => {
    const result = engine.analyze({
      ...base,
      dns: { MX: ['aspmx.l.google.com'], NS: ['ada.ns.cloudflare.com'] },
      certIssuer: "Let's Encrypt",
      robots: 'User-agent: *\n# Powered by Shoporama\nDisallow: /kurv',
    });
    expect(result.technologies.map((t) => t.name)).toEqual(
      expect.arrayContaining(['Google Workspace', 'Cloudflare', "Let's Encrypt", 'Shoporama']),
    );
  });

  it('implies PHP with the tag stripped when a technology implies "PHP\\;confidence:50"', () => {
    const implier = engine.fingerprints.technologies.find((t) =>
      t.implies.some((i) => engine.fingerprints.technologies[i.tech].name === 'PHP' && i.confidence === 75),
    );
    expect(implier).toBeDefined();
  });
});
