import { enrichSite, type EnrichmentTechnology } from '../../../src/enrichment';
import { socialProfileOf } from '../../../src/enrichment/social.extractor';
import { htmlPage, input } from './enrichment-fixtures';

describe('social profiles', () => {
  it.each([
    ['https://twitter.com/acme', { network: 'twitter', handle: 'acme' }],
    ['https://x.com/acme?lang=en', { network: 'twitter', handle: 'acme' }],
    ['https://www.facebook.com/pages/Acme/123456', { network: 'facebook', handle: '123456' }],
    ['https://www.facebook.com/profile.php?id=100064', { network: 'facebook', handle: '100064' }],
    [
      'https://de.linkedin.com/company/acme-gmbh/about/',
      { network: 'linkedin', handle: 'company/acme-gmbh' },
    ],
    ['https://www.linkedin.com/in/jane-doe', { network: 'linkedin', handle: 'in/jane-doe' }],
    ['https://www.youtube.com/channel/UC123abc', { network: 'youtube', handle: 'channel/UC123abc' }],
    ['https://www.pinterest.de/acme/', { network: 'pinterest', handle: 'acme' }],
    ['https://www.xing.com/pages/acme-gmbh', { network: 'xing', handle: 'pages/acme-gmbh' }],
    ['https://mastodon.social/@acme', { network: 'mastodon', handle: '@acme@mastodon.social' }],
  ])('%s is a profile', (url, expected) => {
    expect(socialProfileOf(url)).toEqual(expected);
  });

  it.each([
    'https://twitter.com/intent/tweet?text=hi',
    'https://twitter.com/share?url=x',
    'https://www.facebook.com/sharer/sharer.php?u=x',
    'https://www.facebook.com/dialog/share?app_id=1',
    'https://www.linkedin.com/shareArticle?mini=true',
    'https://www.linkedin.com/sharing/share-offsite/?url=x',
    'https://pinterest.com/pin/create/button/?url=x',
    'https://www.youtube.com/watch?v=abc',
    'https://www.youtube.com/embed/abc',
    'https://www.instagram.com/p/Cabc123/',
    'https://github.com/login',
    'https://vimeo.com/123456',
    'https://twitter.com/',
    'ftp://twitter.com/acme',
    'not a url',
  ])('%s is not a profile', (url) => {
    expect(socialProfileOf(url)).toBeUndefined();
  });

  it.each([
    ['https://X.COM/acme', { network: 'twitter', handle: 'acme' }],
    ['https://x%2Ecom/acme', { network: 'twitter', handle: 'acme' }],
    ['https://\uff58\uff0e\uff43\uff4f\uff4d/acme', { network: 'twitter', handle: 'acme' }],
    ['https://x.c\tom/acme', { network: 'twitter', handle: 'acme' }],
    ['https://x\u3002com/acme', { network: 'twitter', handle: 'acme' }],
    ['https://fo\u00adsstodon.org/@acme', { network: 'mastodon', handle: '@acme@fosstodon.org' }],
    ['https://www.example.com/x.com/acme', undefined],
  ])('reads the host the URL parser reads, however %j writes it', (url, expected) => {
    expect(socialProfileOf(url)).toEqual(expected);
  });

  it('deduplicates handles case-insensitively and caps each network', () => {
    const links = Array.from({ length: 40 }, (_, i) => `<a href="https://github.com/org${i}">gh</a>`).join(
      '',
    );
    const record = enrichSite(
      input([
        htmlPage(
          'https://a.com/',
          `<a href="https://twitter.com/Acme">t</a><a href="https://x.com/acme">x</a>${links}`,
        ),
      ]),
    );
    expect(record.social.twitter).toEqual(['Acme']);
    expect(record.social.github).toHaveLength(10);
  });
});

describe('locale', () => {
  const english =
    'The quick brown fox jumps over the lazy dog while the farmer watches from the porch. '.repeat(4);

  it('prefers the declared language, and asks the detector only when none is declared', () => {
    const detector = jest.fn(() => 'fr');
    const declared = enrichSite(
      input(
        [htmlPage('https://a.com/', `<p>${english}</p>`).html.replace('<html>', '<html lang="en-GB">')].map(
          (html) => ({ url: 'https://a.com/', html }),
        ),
        { detectLanguage: detector },
      ),
    );
    expect(declared.locale.language).toBe('en-gb');
    expect(detector).not.toHaveBeenCalled();

    const detected = enrichSite(
      input([htmlPage('https://a.com/', `<p>${english}</p>`)], { detectLanguage: detector }),
    );
    expect(detected.locale).toEqual({ language: 'fr', languages: ['fr'] });
    expect(detector).toHaveBeenCalledWith(expect.stringContaining('quick brown fox'));
  });

  it('does not detect a language from too little text, or when the detector is unsure', () => {
    const detector = jest.fn((): string | undefined => undefined);
    expect(
      enrichSite(input([htmlPage('https://a.com/', '<p>Hi</p>')], { detectLanguage: () => 'en' })).locale,
    ).toEqual({});
    expect(
      enrichSite(input([htmlPage('https://a.com/', `<p>${english}</p>`)], { detectLanguage: detector }))
        .locale,
    ).toEqual({});
  });

  it('reads the Content-Language header and lists every GeoIP country', () => {
    const page = {
      ...htmlPage('https://a.com/', '<p>x</p>'),
      headers: { 'content-language': ['de-AT, en'] },
    };
    const record = enrichSite(
      input([page], {
        addresses: [
          { address: '203.0.113.1', country: 'AT' },
          { address: '198.51.100.1', country: 'US', region: 'California' },
          { address: '198.51.100.2' },
        ],
      }),
    );
    expect(record.locale).toEqual({
      language: 'de-at',
      languages: ['de-at', 'en'],
      ipCountry: 'AT',
      ipCountries: ['AT', 'US'],
    });
  });

  it("lists the language, then each page's declared ones in order: html lang, header, meta, og:locale", () => {
    const home = {
      ...htmlPage(
        'https://a.com/',
        '<html lang="fr_CA"><head><meta http-equiv="Content-Language" content="it, {{lang}}">' +
          '<meta property="og:locale" content="nl_NL"></head><body>x</body></html>',
      ),
      headers: { 'content-language': ['de_AT, en'] },
    };
    const other = { ...htmlPage('https://a.com/about', '<html lang="es"><p>y</p></html>'), headers: {} };
    expect(enrichSite(input([other, home])).locale).toEqual({
      language: 'fr-ca',
      languages: ['fr-ca', 'es', 'de-at', 'en', 'it', 'nl-nl'],
    });
  });
});

describe('security', () => {
  it('reports https without a certificate over plain http, and DMARC only for a real DMARC record', () => {
    const record = enrichSite(
      input([htmlPage('http://a.com/', '')], {
        certificate: { issuer: 'ignored', protocol: 'TLSv1.3', validTo: '' },
        dns: { txt: ['v=spf1x'], dmarc: ['v=DMARC1; p=none'] },
      }),
    );
    expect(record.security).toEqual({ https: false, dns: { spf: false, dmarc: true } });
  });
});

describe('signals and trackers', () => {
  const tech = (name: string, pricing: string[], category = 'cms'): EnrichmentTechnology => ({
    slug: name.toLowerCase(),
    name,
    categories: [{ id: 1, slug: category, name: category }],
    pricing,
  });
  const signalsOf = (technologies: EnrichmentTechnology[], trafficRank?: number) =>
    enrichSite(input([htmlPage('https://a.com/', '')], { technologies, trafficRank })).signals;

  it('sums the costliest pricing tag of each technology into a spend label', () => {
    expect(signalsOf([tech('Free', ['freemium', 'recurring'])])).toEqual({});
    expect(signalsOf([tech('A', ['low'])])).toEqual({ technologySpend: 'Very low' });
    expect(signalsOf([tech('A', ['low']), tech('B', ['low', 'mid'])])).toEqual({ technologySpend: 'Medium' });
    expect(signalsOf([tech('A', ['poa'])])).toEqual({ technologySpend: 'Medium' });
    expect(signalsOf([tech('A', ['high']), tech('B', ['high']), tech('C', ['mid'])])).toEqual({
      technologySpend: 'High',
    });
    expect(signalsOf(Array.from({ length: 6 }, (_, i) => tech(`H${i}`, ['high'])))).toEqual({
      technologySpend: 'Very high',
    });
  });

  it('labels traffic by rank bucket', () => {
    expect(
      [1, 1_000, 1_001, 10_000, 100_000, 1_000_000, 1_000_001].map(
        (rank) => signalsOf([], rank).trafficLevel,
      ),
    ).toEqual(['Very high', 'Very high', 'High', 'High', 'Medium', 'Low', 'Very low']);
    expect(signalsOf([], 0)).toEqual({});
  });

  it('lists technologies of tracking categories only', () => {
    const record = enrichSite(
      input([htmlPage('https://a.com/', '')], {
        technologies: [
          tech('WordPress', []),
          tech('Google Tag Manager', [], 'tag-managers'),
          tech('Facebook Pixel', [], 'advertising'),
          tech('Cookiebot', [], 'cookie-compliance'),
        ],
      }),
    );
    expect(record.trackers).toEqual({ trackers: ['Google Tag Manager', 'Facebook Pixel'] });
  });
});
