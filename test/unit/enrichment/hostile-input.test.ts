import { enrichSite } from '../../../src/enrichment';
import { parsePageDocument } from '../../../src/enrichment/page-document';
import { schemaNodesOf } from '../../../src/enrichment/structured-data';
import { htmlPage, input } from './enrichment-fixtures';

/** Hostile pages end with bounded output; none of these may throw, hang or grow without limit. */
describe('enrichment on hostile input', () => {
  it('skips broken JSON-LD, repairs trailing commas and raw line breaks, and ignores non-objects', () => {
    const page = htmlPage(
      'https://a.com/',
      '',
      `<script type="application/ld+json">{"@type": "Organization", "name": "Broken</script>
       <script type="application/ld+json">{"@type": "Organization", "name": "Repaired
         Corp", "sameAs": ["https://twitter.com/repaired",],}</script>
       <script type="application/ld+json">42</script>
       <script type="application/ld+json">null</script>
       <script type="application/ld+json"><!-- {"@type": "Person", "name": "Ann Lee", "jobTitle": "CEO"} --></script>`,
    );
    const record = enrichSite(input([page]));
    expect(record.company.companyName).toBe('Repaired Corp');
    expect(record.social.twitter).toEqual(['repaired']);
    expect(record.contact.employees).toEqual([{ name: 'Ann Lee', title: 'CEO' }]);
  });

  it('walks deeply nested JSON-LD only to a bounded depth', () => {
    let nested: unknown = { '@type': 'Organization', name: 'Deep' };
    for (let i = 0; i < 1_000; i++) nested = { '@type': 'Thing', child: nested };
    const doc = parsePageDocument(
      'https://a.com/',
      `<script type="application/ld+json">${JSON.stringify(nested).slice(0, 190_000)}</script>
       <script type="application/ld+json">${'['.repeat(100_000)}${']'.repeat(100_000)}</script>`,
    );
    const nodes = schemaNodesOf(doc);
    expect(nodes.length).toBeLessThanOrEqual(11);
    expect(nodes.some((node) => node.types.includes('Organization'))).toBe(false);
  });

  it('bounds JSON-LD blocks, nodes and schema.org types', () => {
    const block = JSON.stringify(
      Array.from({ length: 2_000 }, (_, i) => ({
        '@type': `Type${i}`,
        name: `N${i}`,
        telephone: '+49 30 1234567',
      })),
    );
    const html = Array.from(
      { length: 50 },
      () => `<script type="application/ld+json">${block}</script>`,
    ).join('');
    const doc = parsePageDocument('https://a.com/', html);
    expect(doc.jsonLd).toHaveLength(20);
    expect(schemaNodesOf(doc).length).toBeLessThanOrEqual(500);
    const record = enrichSite(input([{ url: 'https://a.com/', html }]));
    expect(record.meta.schemaOrgTypes).toHaveLength(20);
    expect(record.phone.phone).toEqual(['+49301234567']);
  });

  it('bounds anchors, links and handles on a page with 100,000 links', () => {
    const links = Array.from(
      { length: 100_000 },
      (_, i) => `<a href="https://www.instagram.com/user${i}">i</a><a href="mailto:u${i}@firma.de">m</a>`,
    ).join('');
    const doc = parsePageDocument('https://a.com/', links);
    expect(doc.anchors).toHaveLength(3_000);
    const record = enrichSite(input([{ url: 'https://a.com/', html: links }]));
    expect(record.social.instagram).toHaveLength(10);
    expect(record.email.email).toHaveLength(10);
  });

  it('reads only the first 3 MB of a huge page and keeps 200,000 characters of its text', () => {
    const html = `<html><body>${'<p>lorem ipsum dolor sit amet</p>'.repeat(200_000)}<footer>© 2024 Late Corp</footer></body></html>`;
    expect(html.length).toBeGreaterThan(6_000_000);
    const doc = parsePageDocument('https://a.com/', html);
    expect(doc.text.length).toBeLessThanOrEqual(200_000);
    expect(enrichSite(input([{ url: 'https://a.com/', html }])).meta.copyright).toBeUndefined();
  });

  it('survives deeply nested markup and microdata without recursion', () => {
    // htmlparser2 keeps its open-element stack with Array#unshift, so nesting costs O(depth²) inside the parser
    // (the fetcher's link extractor shares this); the page cap bounds it.
    const depth = 40_000;
    const html = `${'<div itemscope itemtype="https://schema.org/Thing"><span itemprop="name">x'.repeat(depth / 2)}${'</span></div>'.repeat(depth / 2)}`;
    const doc = parsePageDocument('https://a.com/', html);
    expect(doc.microdata.length).toBe(1);
    const record = enrichSite(input([{ url: 'https://a.com/', html }]));
    expect(record.meta.schemaOrgTypes).toEqual(['Thing']);
  });

  it('ignores prototype-polluting property names in microdata', () => {
    const doc = parsePageDocument(
      'https://a.com/',
      '<div itemscope itemtype="https://schema.org/Organization"><span itemprop="__proto__">x</span><span itemprop="name">Safe</span></div>',
    );
    expect(doc.microdata[0]).toEqual({ '@type': ['https://schema.org/Organization'], name: 'Safe' });
    expect(Object.getPrototypeOf(doc.microdata[0])).toBe(Object.prototype);
  });

  it('reads at most 25 pages', () => {
    const pages = Array.from({ length: 40 }, (_, i) =>
      htmlPage(`https://a.com/kontakt/${i}`, `<p>Tel: +49 30 12345${String(i).padStart(2, '0')}</p>`),
    );
    expect(enrichSite(input(pages)).phone.phone).toHaveLength(10);
    const one = Array.from({ length: 40 }, (_, i) =>
      htmlPage(`https://a.com/p${i}`, i === 30 ? '<a href="https://twitter.com/late">t</a>' : ''),
    );
    expect(enrichSite(input(one)).social).toEqual({});
  });
});
