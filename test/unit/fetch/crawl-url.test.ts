import { looksLikeNonHtml, normaliseCrawlUrl, robotsProductToken } from '../../../src/fetch/crawl-url';
import { HostnameCollector } from '../../../src/fetch/observed-hostnames';
import { normaliseLanguages } from '../../../src/fetch/page-language';
import { isSameCrawlHost, isSameSite } from '../../../src/fetch/site-scope';

describe('normaliseCrawlUrl', () => {
  it('makes equivalent URLs equal', () => {
    expect(normaliseCrawlUrl('HTTPS://Example.COM:443/a?b=2&a=1#x')).toBe('https://example.com/a?a=1&b=2');
    expect(normaliseCrawlUrl('https://example.com/?utm_source=x&gclid=1')).toBe('https://example.com/');
    expect(normaliseCrawlUrl('https://example.com/page?')).toBe('https://example.com/page');
  });

  it('keeps meaningful differences', () => {
    expect(normaliseCrawlUrl('https://example.com/a/')).not.toBe(normaliseCrawlUrl('https://example.com/a'));
    expect(normaliseCrawlUrl('https://example.com/?page=2')).toBe('https://example.com/?page=2');
  });
});

describe('looksLikeNonHtml', () => {
  it.each(['/doc.PDF', '/img/a.jpg', '/app.js?v=1', '/feed.xml', '/archive.tar.gz'])('skips %s', (path) => {
    expect(looksLikeNonHtml(`https://example.com${path}`)).toBe(true);
  });
  it.each(['/', '/about', '/index.php', '/page.html', '/v1.2/'])('keeps %s', (path) => {
    expect(looksLikeNonHtml(`https://example.com${path}`)).toBe(false);
  });
});

describe('robotsProductToken', () => {
  it('takes the bot name from a compatible user agent, else the first product', () => {
    expect(robotsProductToken('Mozilla/5.0 (compatible; TechIntelBot/1.0)')).toBe('TechIntelBot');
    expect(robotsProductToken('MyCrawler/2.0 (+https://example.com)')).toBe('MyCrawler');
  });
});

describe('site scope', () => {
  it('treats subdomains of one registrable domain as one site', () => {
    expect(isSameSite('static.example.co.uk', 'www.example.co.uk')).toBe(true);
    expect(isSameSite('example.co.uk', 'other.co.uk')).toBe(false);
    expect(isSameSite('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(isSameSite('127.0.0.1', '127.0.0.2')).toBe(false);
  });

  it('crawls one host, www or not', () => {
    expect(isSameCrawlHost('www.example.com', 'example.com')).toBe(true);
    expect(isSameCrawlHost('blog.example.com', 'example.com')).toBe(false);
  });
});

describe('HostnameCollector', () => {
  it('collects registrable host names from URLs and CSP, CORS and Link headers', () => {
    const hosts = new HostnameCollector();
    hosts.addUrl('https://WWW.Example.com/x');
    hosts.addUrl('http://127.0.0.1:8080/');
    hosts.addUrl('http://localhost/');
    hosts.add('*.cdn.example.com.');
    hosts.addFromHeaders({
      'content-security-policy': [
        "default-src 'self' https:; script-src 'nonce-abc' js.stripe.com https://*.google.com:443/path data: 'unsafe-inline'",
      ],
      'access-control-allow-origin': ['https://app.example.org', '*'],
      link: ['<https://api.example.net/wp-json/>; rel="https://api.w.org/", </local>; rel=preload'],
    });
    expect(hosts.values()).toEqual([
      'api.example.net',
      'app.example.org',
      'cdn.example.com',
      'google.com',
      'js.stripe.com',
      'www.example.com',
    ]);
  });
});

describe('normaliseLanguages', () => {
  it('lowercases, unifies separators, deduplicates and drops non-tags', () => {
    expect(normaliseLanguages(['en-US', 'en_US', ' fr ', 'x-default-nope!', '{{lang}}', ''])).toEqual([
      'en-us',
      'fr',
    ]);
  });
});
