import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { fetchPage, FetchError, FetchPageOptions } from '../../../src/fetch';
import { startTestSites, TestSites } from '../../helpers/test-sites';

/** Short timeouts keep failure cases fast; no DNS facts for IP-literal hosts. */
const options: FetchPageOptions = { allowPrivateTargets: true, timeoutMs: 2_000, connectTimeoutMs: 1_000 };

let sites: TestSites;
beforeAll(async () => {
  sites = await startTestSites();
});
afterAll(async () => {
  await sites.close();
});

async function fetchError(path: string, extra: FetchPageOptions = {}): Promise<FetchError> {
  const error = await fetchPage(sites.url(path), { ...options, ...extra }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(FetchError);
  return error as FetchError;
}

describe('fetchPage on a WordPress-like home page', () => {
  it('builds the detection input: headers, cookies, html, same-site assets, robots', async () => {
    const page = await fetchPage(sites.url('/'), options);
    const { input } = page;
    expect(input.url).toBe(sites.url('/'));
    expect(input.status).toBe(200);
    expect(input.headers?.['x-powered-by']).toEqual(['PHP/8.2.12']);
    expect(input.headers?.['set-cookie']).toHaveLength(2);
    expect(input.cookies).toEqual({
      wordpress_test_cookie: ['WP%20Cookie%20check'],
      PHPSESSID: ['homesession'],
    });
    expect(input.html).toContain('<meta name="generator" content="WordPress 6.4.2">');
    expect(input.scriptSrc).toContain('https://www.googletagmanager.com/gtag/js?id=G-TEST123');
    expect(input.scripts).toEqual([
      expect.stringContaining('jQuery v3.7.1'),
      expect.stringContaining('flavorTheme'),
    ]);
    expect(input.css).toEqual([expect.stringContaining('Theme Name: Flavor')]);
    expect(input.robots).toContain('Disallow: /private/');
    expect(input.dns).toEqual({ TXT: [], MX: [], NS: [], SOA: [], CNAME: [], DMARC: [] });
    expect(input.certIssuer).toBeUndefined();
    expect(page.certificate).toBeUndefined();
    expect(page.remoteAddress).toBe('127.0.0.1');
    expect(page.charset).toBe('utf-8');
    expect(page.truncated).toBe(false);
  });

  it('hands its one reading of the page along (not enumerable: copies and JSON leave it out)', async () => {
    const { input } = await fetchPage(sites.url('/'), options);
    expect(input.parsed?.html).toBe(input.html);
    expect(input.parsed?.light.metas).toContainEqual({ name: 'generator', content: 'WordPress 6.4.2' });
    expect(Object.keys(input)).not.toContain('parsed');
    expect(JSON.stringify(input)).not.toContain('"parsed"');
  });

  it('reports languages, links and every host name the page reveals', async () => {
    const page = await fetchPage(sites.url('/'), options);
    expect(page.languages).toEqual(['en-us', 'en']);
    expect(page.links).toEqual(
      expect.arrayContaining([sites.url('/about/'), 'https://twitter.com/flavorshop']),
    );
    expect(page.links).not.toContain(sites.url('/commented-out/'));
    expect(page.hostnames).toEqual(
      expect.arrayContaining([
        'www.googletagmanager.com', // script
        'fonts.googleapis.com', // stylesheet
        'images.flavorcdn.com', // srcset and CSP
        'www.youtube.com', // iframe
        'newsletter.mailservice.io', // form
        'api.flavorshop.example', // Link header
        'app.flavorshop.example', // CORS
        'stripe.com', // CSP wildcard
        'twitter.com', // link
      ]),
    );
  });

  it('sends the configured User-Agent and never fetches third-party scripts', async () => {
    const before = sites.requests.length;
    await fetchPage(sites.url('/'), { ...options, userAgent: 'SpecBot/9.9' });
    const made = sites.requests.slice(before);
    expect(made.every((request) => request.userAgent === 'SpecBot/9.9')).toBe(true);
    expect(made.map((request) => request.path).sort()).toEqual(
      [
        '/',
        '/robots.txt',
        '/wp-content/themes/flavor/assets/theme.js?ver=2.1.0',
        '/wp-content/themes/flavor/style.css?ver=2.1.0',
        '/wp-includes/js/jquery/jquery.min.js?ver=3.7.1',
      ].sort(),
    );
  });

  it('bounds the number of script bodies', async () => {
    const page = await fetchPage(sites.url('/'), { ...options, maxScripts: 1, maxStylesheets: 0 });
    expect(page.input.scripts).toHaveLength(1);
    expect(page.input.css).toEqual([]);
  });

  it('bounds the size of each script body', async () => {
    const page = await fetchPage(sites.url('/'), { ...options, maxScriptBytes: 10 });
    expect(page.input.scripts?.[0]).toBe('/*! jQuery');
  });

  it('does not refetch site facts it is given', async () => {
    const before = sites.requests.length;
    const page = await fetchPage(sites.url('/about/'), {
      ...options,
      siteFacts: { robots: 'given', dns: { TXT: ['x'], MX: [], NS: [], SOA: [], CNAME: [], DMARC: [] } },
    });
    expect(page.input.robots).toBe('given');
    expect(page.input.dns?.TXT).toEqual(['x']);
    expect(sites.requests.slice(before).some((request) => request.path === '/robots.txt')).toBe(false);
  });
});

describe('fetchPage redirects and cookies', () => {
  it('follows a redirect chain, recording each hop', async () => {
    const page = await fetchPage(sites.url('/redirect/start'), options);
    expect(page.input.url).toBe(sites.url('/about/'));
    expect(page.requestedUrl).toBe(sites.url('/redirect/start'));
    expect(page.redirects).toEqual([
      { url: sites.url('/redirect/start'), status: 301, location: sites.url('/redirect/step-2') },
      { url: sites.url('/redirect/step-2'), status: 302, location: sites.url('/redirect/step-3') },
      { url: sites.url('/redirect/step-3'), status: 307, location: sites.url('/about/') },
    ]);
    expect(page.input.cookies?.hop).toEqual(['1']);
  });

  it('sends cookies set during redirects on the next hop', async () => {
    const page = await fetchPage(sites.url('/cookie-check'), options);
    expect(page.input.html).toContain('cookie ok');
  });

  it('gives up on too many redirects with RESPONSE_NOT_OK', async () => {
    const error = await fetchError('/redirect/start', { maxRedirects: 2 });
    expect(error.type).toBe('RESPONSE_NOT_OK');
    expect(error.message).toMatch(/More than 2 redirects/);
  });

  it('detects a redirect loop', async () => {
    const error = await fetchError('/loop/a');
    expect(error.toJSON()).toEqual({
      type: 'RESPONSE_NOT_OK',
      message: expect.stringMatching(/Redirect loop/),
    });
  });
});

describe('fetchPage failures', () => {
  it('maps a 500 to RESPONSE_NOT_OK', async () => {
    const error = await fetchError('/error');
    expect(error.type).toBe('RESPONSE_NOT_OK');
    expect(error.status).toBe(500);
  });

  it('maps a 404 to RESPONSE_NOT_OK', async () => {
    expect((await fetchError('/missing')).status).toBe(404);
  });

  it('maps a server that never answers to NO_RESPONSE', async () => {
    const error = await fetchError('/slow', { timeoutMs: 300 });
    expect(error.type).toBe('NO_RESPONSE');
    expect(error.message).toMatch(/300 ms/);
  });

  it('maps a refused connection to NO_RESPONSE', async () => {
    const error = await fetchPage('http://127.0.0.1:1/', options).catch((caught: FetchError) => caught);
    expect(error).toMatchObject({ type: 'NO_RESPONSE', message: 'Connection refused' });
  });

  it('maps JSON and empty bodies to NO_HTML_DOCUMENT', async () => {
    expect((await fetchError('/api/data.json')).type).toBe('NO_HTML_DOCUMENT');
    expect((await fetchError('/empty')).type).toBe('NO_HTML_DOCUMENT');
  });

  it('accepts HTML served without a Content-Type', async () => {
    const page = await fetchPage(sites.url('/no-content-type'), options);
    expect(page.languages).toEqual(['de']);
  });

  it('maps a corrupt gzip body to NO_RESPONSE', async () => {
    const error = await fetchError('/compressed/corrupt');
    expect(error.type).toBe('NO_RESPONSE');
    expect(error.message).toMatch(/decompressed/);
  });

  it('maps an unusable URL to NO_RESPONSE', async () => {
    await expect(fetchPage('ftp://127.0.0.1/', options)).rejects.toMatchObject({ type: 'NO_RESPONSE' });
  });
});

describe('fetchPage decoding', () => {
  it('decodes windows-1251 declared by <meta charset>', async () => {
    const page = await fetchPage(sites.url('/charset/windows-1251'), options);
    expect(page.charset).toBe('windows-1251');
    expect(page.input.html).toContain('<title>Привет, мир</title>');
  });

  it('decodes Shift_JIS declared by <meta http-equiv>', async () => {
    const page = await fetchPage(sites.url('/charset/shift-jis'), options);
    expect(page.charset).toBe('shift_jis');
    expect(page.input.html).toContain('こんにちは世界');
  });

  it('prefers the header charset over a contradicting meta', async () => {
    const page = await fetchPage(sites.url('/charset/header'), options);
    expect(page.input.html).toContain('<title>café</title>');
  });

  it.each(['gzip', 'br', 'deflate'])('decompresses %s', async (coding) => {
    const page = await fetchPage(sites.url(`/compressed/${coding}`), options);
    expect(page.input.html).toContain('<title>Compressé</title>');
    expect(page.input.html.endsWith('</html>')).toBe(true);
  });

  it('keeps the first 5 MB of a 20 MB page and reports truncation', async () => {
    const page = await fetchPage(sites.url('/big'), options);
    expect(page.truncated).toBe(true);
    expect(Buffer.byteLength(page.input.html)).toBe(5 * 1024 * 1024);
  });

  it('stops inflating a gzip bomb at the cap', async () => {
    const page = await fetchPage(sites.url('/gzip-bomb'), { ...options, maxBodyBytes: 256 * 1024 });
    expect(page.truncated).toBe(true);
    expect(page.input.html.length).toBe(256 * 1024);
  });
});

describe('fetchPage over https with a self-signed certificate', () => {
  it('reads the certificate issuer and subject alternative names', async () => {
    const page = await fetchPage(`${sites.httpsUrl}/`, options);
    expect(page.input.certIssuer).toBe(sites.certificate.issuer);
    expect(page.certificate?.subjectAltNames).toEqual(sites.certificate.subjectAltNames);
    expect(page.hostnames).toEqual(
      expect.arrayContaining(['secure.test', 'www.secure.test', 'cdn.secure.test']),
    );
  });

  it('records the negotiated TLS protocol, the expiry and the address connected to', async () => {
    const page = await fetchPage(`${sites.httpsUrl}/`, options);
    expect(page.certificate?.protocol).toBe('TLSv1.3');
    expect(Date.parse(page.certificate?.validTo ?? '')).toBeGreaterThan(Date.now());
    expect(page.remoteAddress).toBe('127.0.0.1');
  });

  it('reads the protocol of each connection: a TLS 1.2-only server says TLSv1.2', async () => {
    const { cert, private: key } = await generate([{ name: 'commonName', value: 'old.test' }], {
      keyType: 'ec',
      curve: 'P-256',
    });
    const server = createServer({ cert, key, maxVersion: 'TLSv1.2' }, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>old</body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const page = await fetchPage(`https://127.0.0.1:${(server.address() as AddressInfo).port}/`, options);
      expect(page.certificate?.protocol).toBe('TLSv1.2');
      expect(page.certificate?.issuer).toBe('old.test');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses the certificate when verification is on', async () => {
    const error = await fetchPage(`${sites.httpsUrl}/`, { ...options, rejectUnauthorized: true }).catch(
      (caught: FetchError) => caught,
    );
    expect(error).toMatchObject({ type: 'NO_RESPONSE', message: expect.stringMatching(/certificate/i) });
  });
});
