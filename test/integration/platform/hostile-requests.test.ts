import { createServer, request as httpRequest } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { logger } from '../../../src/platform/logger';
import { eventually } from '../../helpers/eventually';
import { startTestService, TestService } from '../../helpers/test-service';

/** Writes `text` on a fresh TCP connection and returns everything the server sends until it closes. */
function exchange(base: string, text: string, abortAfterWrite = false): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(text);
      if (abortAfterWrite) {
        socket.destroy();
        resolve('');
      }
    });
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

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

  let errorLog: jest.SpyInstance;
  let infoLog: jest.SpyInstance;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());
  beforeEach(() => {
    errorLog = jest.spyOn(logger, 'error');
    infoLog = jest.spyOn(logger, 'info');
  });
  afterEach(() => {
    const errors = errorLog.mock.calls.map((call) => call.at(-1));
    jest.restoreAllMocks();
    // Whatever a caller sends, nothing of it is an error of the service.
    expect(errors).toEqual([]);
  });

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

  it('a subscription sent over HTTP POST answers 400 pointing to the WebSocket', async () => {
    const { apiKey } = await service.createAccount();
    const res = await service.graphql(apiKey, 'subscription { creditsChanged { credits } }');
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      message: expect.stringMatching(/WebSocket/),
      extensions: { code: 'BAD_REQUEST' },
    });
  });

  it('a persisted-query hash that does not match the query answers 400 saying so', async () => {
    const res = await service.request('/graphql', {
      method: 'POST',
      body: {
        query: '{ __typename }',
        extensions: { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).not.toMatch(/Internal server error/);
    expect(res.body.errors[0].extensions.code).not.toBe('INTERNAL');
  });

  it('CONNECT answers 405 with the error body instead of dropping the socket', async () => {
    const reply = await exchange(
      service.url,
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    );
    expect(reply).toMatch(/^HTTP\/1\.1 405 /);
    const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ code: 'METHOD_NOT_ALLOWED', requestId: expect.any(String) });
  });

  it('a request body the client aborts is logged at info, not as an unexpected error', async () => {
    await exchange(
      service.url,
      'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":',
      true,
    );
    await eventually(
      () => infoLog.mock.calls.some((call) => call[1] === 'client aborted the request body'),
      'the aborted body to be logged',
    );
  });
});

/**
 * Sends `head` on a fresh connection, then one byte of `drip` every few milliseconds (a client
 * that never finishes), until the server closes the connection: what it answered, and how many
 * bytes of the drip it had taken by then.
 */
function trickle(base: string, head: string, drip: string): Promise<{ received: string; dripped: number }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    let received = '';
    let dripped = 0;
    let timer: NodeJS.Timeout | undefined;
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(head);
      timer = setInterval(() => {
        if (socket.writable) socket.write(drip[dripped++ % drip.length]);
      }, 10);
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    // The server may reset the connection as it closes it: the close is what counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ received, dripped });
    });
    socket.on('timeout', () => reject(new Error('socket timeout')));
  });
}

describe('slow clients (REQUEST_TIMEOUT_MS)', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ REQUEST_TIMEOUT_MS: '300' });
  });
  afterAll(() => service.stop());

  it('closes a connection whose body trickles in past the deadline, with 408', async () => {
    const length = 1_000_000;
    const { received, dripped } = await trickle(
      service.url,
      `POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
      ' ',
    );
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(dripped).toBeLessThan(length);
  });

  it('closes a connection whose headers trickle in past the deadline, with 408', async () => {
    const { received } = await trickle(
      service.url,
      'GET /healthz HTTP/1.1\r\nHost: localhost\r\n',
      'X-Slow: still-coming\r\n',
    );
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it('lets an answer take longer than the deadline once the request has arrived', async () => {
    // A page that answers only once a trickling client has been cut off (the deadline has passed).
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const site = createServer((_req, res) => {
      void released.then(() =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<html><head><script src="/js/jquery-3.7.1.min.js"></script></head><body>Hi</body></html>'),
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const { apiKey } = await service.createAccount({ plan: 'large', credits: 10 });
      const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
      const answer = service.graphql(apiKey, `{ analyze(url: "${siteUrl}") { url } }`);
      const cut = await trickle(service.url, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n', 'X: y\r\n');
      expect(cut.received).toMatch(/^HTTP\/1\.1 408/);
      release();
      const res = await answer;
      expect(res.status).toBe(200);
      expect(res.body.data.analyze.url).toBe(siteUrl);
    } finally {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    }
  });
});
