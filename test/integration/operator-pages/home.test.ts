import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DomUtils, parseDocument } from 'htmlparser2';
import { startTestService, TestService } from '../../helpers/test-service';

const { name, version } = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as {
  name: string;
  version: string;
};

describe('GET /: where to go from the address of the service', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service?.stop());

  it('answers JSON naming the documentation, the OpenAPI document, GraphQL and the explorer', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const res = await service.request('/', { headers: accept ? { accept } : {} });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('vary')).toMatch(/Accept/);
      expect(res.body).toEqual({
        service: name,
        version,
        documentation: '/docs',
        openapi: '/openapi/v2-public.yaml',
        graphql: '/graphql',
        explorer: '/graphql',
        health: '/healthz',
        readiness: '/readyz',
      });
    }
    // Every path it names answers.
    for (const path of ['/docs', '/openapi/v2-public.yaml', '/healthz']) {
      expect((await service.request(path)).status).toBe(200);
    }
  });

  it('answers a page of links to a browser (Accept: text/html)', async () => {
    const res = await service.request('/', {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const page = parseDocument(res.text);
    expect(DomUtils.textContent(DomUtils.getElementsByTagName('h1', page))).toBe(`${name} ${version}`);
    const links = DomUtils.getElementsByTagName('a', page).map((a) => [
      DomUtils.textContent(a),
      a.attribs.href,
    ]);
    expect(links).toEqual([
      ['API reference', '/docs'],
      ['OpenAPI document', '/openapi/v2-public.yaml'],
      ['GraphQL explorer', '/graphql'],
      ['Health', '/healthz'],
      ['readiness', '/readyz'],
    ]);
    expect(DomUtils.textContent(page)).toContain('POST /graphql');
  });

  it('other unknown paths still answer the JSON 404', async () => {
    const res = await service.request('/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});

describe('GET / with the pages turned off', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ DOCS_ENABLED: 'false', GRAPHQL_EXPLORER_ENABLED: 'false' });
  });
  afterAll(async () => service?.stop());

  it('names them null in JSON and leaves them out of the page', async () => {
    const json = await service.request('/');
    expect(json.body).toMatchObject({ documentation: null, explorer: null, graphql: '/graphql' });
    const html = await service.request('/', { headers: { accept: 'text/html' } });
    const hrefs = DomUtils.getElementsByTagName('a', parseDocument(html.text)).map((a) => a.attribs.href);
    expect(hrefs).toEqual(['/openapi/v2-public.yaml', '/healthz', '/readyz']);
  });
});
