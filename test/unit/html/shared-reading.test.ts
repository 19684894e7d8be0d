import { DetectionEngine, loadFingerprints, withParsedHtml } from '../../../src/detection';
import { enrichSite } from '../../../src/enrichment';
import { parsePageDocument } from '../../../src/enrichment/page-document';
import { parsePageHtml, type ParsedHtml } from '../../../src/html';

/**
 * Detection and enrichment read the reading they are handed when it was made from the very html
 * they get, and read the page themselves otherwise. An emptied reading shows which one they used.
 */
describe('one reading handed along', () => {
  const html =
    '<html><head><meta name="generator" content="WordPress 6.4.2"><title>Plain</title></head></html>';
  const emptied = (source: string): ParsedHtml => ({
    html: source,
    light: parsePageHtml('').light,
    tokens: parsePageHtml('').tokens,
  });

  it('detection uses input.parsed for the same html, and ignores one made from other html', () => {
    const engine = new DetectionEngine(loadFingerprints());
    const slugs = (parsed: ParsedHtml) =>
      engine
        .analyze(withParsedHtml({ url: 'https://a.example/', html }, parsed))
        .technologies.map((t) => t.slug);
    expect(slugs(parsePageHtml(html))).toContain('wordpress');
    // The generator meta is read from the tree: an emptied one finds nothing there.
    expect(slugs(emptied(html))).not.toContain('wordpress');
    expect(slugs(emptied('<p>other</p>'))).toContain('wordpress');
  });

  it('the page document and the enrichment use the reading given for the same html', () => {
    expect(parsePageDocument('https://a.example/', html, parsePageHtml(html)).title).toBe('Plain');
    expect(parsePageDocument('https://a.example/', html, emptied(html)).title).toBeUndefined();
    expect(parsePageDocument('https://a.example/', html, emptied('<p>other</p>')).title).toBe('Plain');
    const enrichment = (parsed: ParsedHtml) =>
      JSON.stringify(
        enrichSite({
          siteUrl: 'https://a.example/',
          pages: [{ url: 'https://a.example/', html, parsed }],
          technologies: [],
        }),
      );
    expect(enrichment(parsePageHtml(html))).toContain('Plain');
    expect(enrichment(emptied(html))).not.toContain('Plain');
  });
});
