import { request as httpRequest } from 'node:http';
import { startTestService, TestService } from '../../helpers/test-service';

/** A raw HTTP exchange, so a test can send what fetch() refuses to (bad encodings, odd methods). */
function raw(
  base: string,
  init: { method: string; path: string; headers?: Record<string, string>; body?: Buffer },
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: init.method, path: init.path, headers: init.headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('malformed and hostile requests', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  const garbage = Buffer.from('this is not compressed at all, not even a little');

  it.each([
    ['br', '/graphql'],
    ['gzip', '/graphql'],
    ['deflate', '/v2/credits/balance/'],
    ['br', '/no/such/path'],
  ])('a %s body that does not decompress answers 400 with the error body on %s', async (encoding, path) => {
    const res = await raw(service.url, {
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      body: garbage,
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'BAD_REQUEST', parameter: 'body' });
  });

  it('an unsupported content-encoding answers 400 naming the body', async () => {
    const res = await raw(service.url, {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', 'content-encoding': 'compress' },
      body: garbage,
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'BAD_REQUEST', parameter: 'body' });
  });
});
