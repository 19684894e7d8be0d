import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DomainRankEntity } from '../../../src/storage/entities';
import { startTestService, TestService } from '../../helpers/test-service';

const IMPORT = `mutation ($format: String!, $content: String, $url: String, $limit: Int, $crawl: Boolean) {
  importSites(format: $format, content: $content, url: $url, limit: $limit, crawl: $crawl) {
    read imported invalid invalidLines duplicates queued sitesRanked
  }
}`;

/**
 * sites:import as the importSites mutation: operators only, a list given as content (bounded by
 * IMPORT_MAX_BYTES) or downloaded from an allowed host through the guarded client.
 */
describe('importSites (GraphQL, operators)', () => {
  let service: TestService;
  let lists: Server;
  let listsPort: number;
  let operatorKey: string;
  let customerKey: string;

  beforeAll(async () => {
    lists = createServer((request, response) => {
      if (request.url === '/top.csv')
        return void response
          .writeHead(200, { 'content-type': 'text/csv' })
          .end('1,alpha.test\n2,www.beta.co.uk\nnot a line\n');
      if (request.url === '/huge.csv')
        return void response.writeHead(200, { 'content-type': 'text/csv' }).end('1,a.test\n'.repeat(300));
      if (request.url === '/moved') return void response.writeHead(302, { location: '/top.csv' }).end();
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => lists.listen(0, '127.0.0.1', resolve));
    listsPort = (lists.address() as AddressInfo).port;
    // The accounts are created first: their ids decide OPERATOR_ACCOUNT_IDS, so a second service
    // start is avoided by reserving id 1 for the operator (a fresh database numbers from 1).
    service = await startTestService({
      OPERATOR_ACCOUNT_IDS: '1',
      IMPORT_MAX_BYTES: '2048',
      IMPORT_URL_HOSTS: '127.0.0.1',
      RECRAWL_AFTER_DAYS: '0',
      TRAFFIC_RANK_REFRESH_MINUTES: '0',
    });
    const operator = await service.createAccount({ plan: 'business' });
    expect(operator.accountId).toBe(1);
    operatorKey = operator.apiKey;
    customerKey = (await service.createAccount({ plan: 'business' })).apiKey;
  });
  afterAll(async () => {
    await service?.stop();
    lists?.closeAllConnections();
    await new Promise((resolve) => lists?.close(resolve));
  });

  const rankOf = (domain: string) =>
    service.running.services.db.manager.findOneBy(DomainRankEntity, { domain }).then((r) => r?.rank ?? null);

  it('imports a list given as content: registrable domains, invalid lines by number, jobs once', async () => {
    const content = '1,shop.example.test\n2,garbage line\n3,www.other.co.uk\n4,example.test\n';
    const first = await service.graphql(operatorKey, IMPORT, { format: 'tranco', content, crawl: true });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.importSites).toEqual({
      read: 4,
      imported: 2,
      invalid: 1,
      invalidLines: [2],
      duplicates: 1,
      queued: 2,
      sitesRanked: 0,
    });
    expect(await rankOf('example.test')).toBe(1);
    expect(await rankOf('other.co.uk')).toBe(3);
    const again = await service.graphql(operatorKey, IMPORT, { format: 'tranco', content, crawl: true });
    expect(again.body.data.importSites.queued).toBe(0);
  });

  it('downloads a list from an allowed host', async () => {
    const result = await service.graphql(operatorKey, IMPORT, {
      format: 'tranco',
      url: `http://127.0.0.1:${listsPort}/top.csv`,
    });
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data.importSites).toMatchObject({
      read: 3,
      imported: 2,
      invalid: 1,
      invalidLines: [3],
    });
    expect(await rankOf('beta.co.uk')).toBe(2);
  });

  it('refuses callers that are not operators, naming the setting', async () => {
    const result = await service.graphql(customerKey, IMPORT, { format: 'plain', content: 'a.test\n' });
    expect(result.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(result.body.errors[0].message).toContain('OPERATOR_ACCOUNT_IDS');
    expect(await rankOf('a.test')).toBeNull();
  });

  it.each([
    [{ format: 'csv', content: 'a.test' }, 'format'],
    [{ format: 'plain' }, 'content'],
    [{ format: 'plain', content: 'a.test', url: 'http://127.0.0.1/' }, 'content'],
    [{ format: 'plain', content: 'a.test', limit: 0 }, 'limit'],
    [{ format: 'plain', content: 'x.test\n'.repeat(400) }, 'IMPORT_MAX_BYTES'],
    [{ format: 'plain', url: 'ftp://127.0.0.1/list' }, 'url'],
    [{ format: 'plain', url: 'http://lists.elsewhere.test/top.csv' }, 'IMPORT_URL_HOSTS'],
  ])('answers 400 for %j naming %s, importing nothing', async (variables, named) => {
    const result = await service.graphql(operatorKey, IMPORT, variables);
    expect(result.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(result.body.errors[0].message).toContain(named);
    expect(await rankOf('x.test')).toBeNull();
  });

  it.each([
    ['/huge.csv', 'IMPORT_MAX_BYTES'],
    ['/missing.csv', 'HTTP 404'],
    ['/moved', 'url'],
  ])('refuses a download of %s (%s)', async (path, named) => {
    const result = await service.graphql(operatorKey, IMPORT, {
      format: 'tranco',
      url: `http://127.0.0.1:${listsPort}${path}`,
    });
    expect(result.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(result.body.errors[0].message).toContain(named);
    expect(await rankOf('a.test')).toBeNull();
  });
});
