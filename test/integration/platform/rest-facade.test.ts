import { request as httpRequest, IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFacadeHandler } from '../../../src/rest-facade/facade-router';
import { sendError } from '../../../src/rest-facade/error-response';
import { z } from 'zod';
import type { AnyRoute } from '../../../src/rest-facade/route';
import { requestIdMiddleware } from '../../../src/http/request-id';
import { NotFoundError } from '../../../src/errors';
import { GraphQLContext, requireCaller } from '../../../src/resolvers/context';
import { RateLimited } from '../../../src/resolvers/guards';
import { field, parseRequest } from '../../../src/services/platform/request-schema';
import { startTestService, TestService } from '../../helpers/test-service';

/** Sends raw bytes, so a test controls exactly what the server gets (broken JSON, odd headers). */
function rawRequest(url: string, method: string, headers: Record<string, string>, body?: string | Buffer) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>(
    (resolve, reject) => {
      const req = httpRequest(url, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString() }),
        );
      });
      req.on('error', reject);
      req.end(body);
    },
  );
}

describe('REST facade', () => {
  let service: TestService;
  let apiKey: string;

  beforeAll(async () => {
    service = await startTestService({ REQUEST_BODY_LIMIT_BYTES: '2048' });
    ({ apiKey } = await service.createAccount({ plan: 'small' }));
  });
  afterAll(() => service.stop());

  it('answers an unknown path with a 404 JSON error', async () => {
    // GET / names the entry points (test/integration/operator-pages/home.test.ts).
    for (const path of ['/v2/nothing-here/', '/v3/credits/balance', '/v2']) {
      const res = await service.request(path, { key: apiKey });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(res.body).toMatchObject({
        code: 'NOT_FOUND',
        message: expect.stringContaining('No such endpoint'),
      });
      expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    }
  });

  it('answers a wrong method with 405 and Allow, with or without the slash', async () => {
    for (const [method, path] of [
      ['POST', '/v2/credits/balance/'],
      ['DELETE', '/v2/credits/balance'],
      ['POST', '/lookup/v1/usage'],
    ]) {
      const res = await service.request(path, { key: apiKey, method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET');
      expect(res.body).toMatchObject({ code: 'METHOD_NOT_ALLOWED', allowed: ['GET'] });
    }
  });

  it('refuses an unknown parameter with a 400 naming it', async () => {
    const res = await service.request('/v2/credits/balance/?acount=1', { key: apiKey });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'BAD_REQUEST',
      parameter: 'acount',
      message: expect.stringContaining('acount'),
    });
  });

  it('refuses a repeated unknown parameter by name too', async () => {
    const res = await service.request('/lookup/v1/usage?x=1&x=2', { key: apiKey });
    expect(res.status).toBe(400);
    expect(res.body.parameter).toBe('x');
  });

  it('answers HEAD like GET without a body', async () => {
    const res = await service.request('/v2/credits/balance/', { key: apiKey, method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(res.headers.get('service-credits-remaining')).toBe('100');
  });

  it('answers malformed JSON on POST /graphql with a 400 JSON error', async () => {
    const res = await rawRequest(
      `${service.url}/graphql`,
      'POST',
      { 'content-type': 'application/json', 'x-api-key': apiKey },
      '{"query": "{ creditBalance { credits } }"',
    );
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(JSON.parse(res.text)).toMatchObject({ code: 'BAD_REQUEST', parameter: 'body' });
  });

  it('answers a body over REQUEST_BODY_LIMIT_BYTES with a 413 JSON error', async () => {
    const body = JSON.stringify({ query: '{ creditBalance { credits } }', padding: 'x'.repeat(4096) });
    const res = await rawRequest(
      `${service.url}/graphql`,
      'POST',
      { 'content-type': 'application/json', 'x-api-key': apiKey },
      body,
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('still reads the body of a GET that carries one: malformed JSON 400, too large 413, well-formed answered', async () => {
    // GETs without a body are answered before the body parser (the facade's bodyless lane);
    // one that carries a body goes the whole way, as before.
    const get = (body: string) =>
      rawRequest(
        `${service.url}/v2/credits/balance/`,
        'GET',
        {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'x-api-key': apiKey,
        },
        body,
      );
    const malformed = await get('{broken');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.text)).toMatchObject({ code: 'BAD_REQUEST', parameter: 'body' });
    expect((await get(JSON.stringify({ padding: 'x'.repeat(4096) }))).status).toBe(413);
    const fine = await get('{}');
    expect(fine.status).toBe(200);
    expect(JSON.parse(fine.text)).toEqual({ credits: 100 });
    const bare = await service.request('/v2/credits/balance/', { key: apiKey });
    expect(bare.status).toBe(200);
    expect(bare.body).toEqual({ credits: 100 });
  });

  it("answers a GET without a body beside Express's router with what the router would answer", async () => {
    // A GET without a body is answered from Node's request event (src/http/bodyless-lane.ts); one
    // with a body goes through Express's router to the same handler: same headers, same answer.
    const headersOf = (res: { headers: Record<string, unknown> }) =>
      Object.keys(res.headers)
        .filter((name) => name !== 'date')
        .sort();
    const url = `${service.url}/v2/credits/balance/`;
    const lane = await rawRequest(url, 'GET', { 'x-api-key': apiKey, 'x-request-id': 'lane-1' });
    const router = await rawRequest(
      url,
      'GET',
      {
        'x-api-key': apiKey,
        'x-request-id': 'router-1',
        'content-type': 'application/json',
        'content-length': '2',
      },
      '{}',
    );
    expect(lane.status).toBe(200);
    expect(router.status).toBe(200);
    expect(headersOf(lane)).toEqual(headersOf(router));
    expect(lane.headers['x-request-id']).toBe('lane-1');
    expect(lane.headers['content-type']).toBe(router.headers['content-type']);
    expect(lane.text).toBe(router.text);
    // The query as Express parses it: an unknown parameter is refused by name.
    const unknown = await rawRequest(`${url}?colour=red`, 'GET', { 'x-api-key': apiKey });
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.text)).toMatchObject({ code: 'BAD_REQUEST', parameter: 'colour' });
    expect(unknown.headers['x-request-id']).toEqual(expect.any(String));
  });

  it("makes Express's request and response objects as Node creates them: no prototype changed per request", async () => {
    // Changing an object's prototype after Node made it (as Express does) cost the main thread
    // about a fifth of its CPU per stored lookup in V8's property-lookup misses (src/http/bodyless-lane.ts).
    const setPrototypeOf = Object.setPrototypeOf;
    const changed: string[] = [];
    const spy = jest.spyOn(Object, 'setPrototypeOf').mockImplementation((target: object, prototype) => {
      const message = target instanceof IncomingMessage || target instanceof ServerResponse;
      if (message && Object.getPrototypeOf(target) !== prototype) changed.push(target.constructor.name);
      return setPrototypeOf(target, prototype) as object;
    });
    try {
      // A GET without a body (the lane) and a POST to /graphql (Express's router).
      const lane = await rawRequest(`${service.url}/v2/credits/balance/`, 'GET', {
        'x-api-key': apiKey,
        'x-request-id': 'shape-1',
      });
      // Answered by the facade through the lane (the key's per-second limit may refuse it after
      // the tests before: a 429 takes the same way).
      expect([200, 429]).toContain(lane.status);
      expect(lane.headers['x-request-id']).toBe('shape-1');
      const graphql = await rawRequest(
        `${service.url}/graphql`,
        'POST',
        { 'content-type': 'application/json' },
        JSON.stringify({ query: '{ __typename }' }),
      );
      expect(graphql.status).toBe(200);
      expect(JSON.parse(graphql.text)).toEqual({ data: { __typename: 'Query' } });
      expect(changed).toEqual([]);
      // Express did set them, to the prototypes they already had.
      expect(spy).toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  it.each([
    ['POST', '/graphql', { 'content-type': 'text/plain' }, '{"query":"{ creditBalance { credits } }"}'],
    ['POST', '/graphql', { 'content-type': 'application/json' }, ''],
    ['POST', '/graphql', { 'content-type': 'application/json' }, 'null'],
    ['POST', '/graphql', { 'content-type': 'application/json' }, '[]'],
    ['POST', '/graphql', { 'content-type': 'application/json' }, '"just a string"'],
    ['POST', '/graphql', { 'content-type': 'application/json' }, '{"query": 5}'],
    ['POST', '/graphql', { 'content-type': 'application/json' }, '{"query": "{ nope }"}'],
    [
      'POST',
      '/graphql',
      { 'content-type': 'application/json' },
      '{"query": "{ ledger(limit: \\"x\\") { nextBefore } }"}',
    ],
    ['POST', '/graphql', { 'content-type': 'application/json; charset=latin9' }, '{}'],
    ['POST', '/graphql', {}, undefined],
    ['GET', '/graphql', {}, undefined],
    ['PUT', '/graphql', { 'content-type': 'application/json' }, '{}'],
    ['GET', '/v2/credits/%E0%A4%A/', {}, undefined],
    ['GET', '/v2/credits/balance/?%zz=1', {}, undefined],
    ['GET', '/v2/credits/balance/?a[b]=1', {}, undefined],
    ['POST', '/v2/credits/balance/', { 'content-type': 'application/json' }, '{broken'],
    ['GET', '/lookup/v1/usage/' + 'a'.repeat(5000), {}, undefined],
  ])('never answers bad input with a 5xx (case %#: %s)', async (method, path, headers, body) => {
    const res = await rawRequest(`${service.url}${path}`, method, { 'x-api-key': apiKey, ...headers }, body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers['content-type']).toMatch(/json/);
    expect(() => JSON.parse(res.text)).not.toThrow();
  });
});

describe('facade parameter handling (a route table of its own)', () => {
  let service: TestService;
  let server: Server;
  let base: string;
  let apiKey: string;

  const EchoRequest = z.object({
    q: field.text({ maxLength: 10, required: true, description: 'text' }),
    limit: field.integer({ min: 10, max: 100, multipleOf: 10, description: 'number' }),
  });

  class EchoResolver {
    @RateLimited('credits')
    async echo(ctx: GraphQLContext, args: object) {
      const values = parseRequest(EchoRequest, args);
      return { credits: await ctx.services.credits.balance(requireCaller(ctx).principal.accountId), values };
    }
  }

  const echoRoute: AnyRoute = {
    method: 'GET',
    path: '/test/v1/echo',
    operationId: 'echo',
    summary: 'Reads the balance, with parameters to validate',
    tag: 'Test',
    request: EchoRequest,
    resolver: [EchoResolver, 'echo'],
    present: (result) => ({ status: 200, body: result }),
    responses: { 200: { description: 'ok', shape: z.object({}) } },
  };

  beforeAll(async () => {
    service = await startTestService();
    ({ apiKey } = await service.createAccount({ plan: 'business' }));
    const app = express();
    app.set('query parser', 'simple');
    app.use(requestIdMiddleware);
    app.use(createFacadeHandler(service.running.services, [echoRoute]));
    app.use((req: express.Request, res: express.Response) =>
      sendError(res, new NotFoundError('No such endpoint'), res.locals.requestId as string),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await service.stop();
  });

  const get = async (path: string) => {
    const res = await fetch(base + path, { headers: { 'x-api-key': apiKey } });
    return { status: res.status, body: await res.json() };
  };

  it('passes parsed values to the route', async () => {
    expect(await get('/test/v1/echo?q=hello&limit=20')).toEqual({
      status: 200,
      body: { credits: 100, values: { q: 'hello', limit: 20 } },
    });
  });

  it.each([
    ['/test/v1/echo/?q=a&q=b', 'q', /once/],
    ['/test/v1/echo?q=a&limit=20&limit=30', 'limit', /once/],
    ['/test/v1/echo', 'q', /required/],
    ['/test/v1/echo?q=' + 'x'.repeat(11), 'q', /at most 10/],
    ['/test/v1/echo?q=a&limit=15', 'limit', /multiple of 10/],
    ['/test/v1/echo?q=a&limit=abc', 'limit', /whole number/],
    ['/test/v1/echo?q=a&limit=1000', 'limit', /between 10 and 100/],
    ['/test/v1/echo?q=a&extra=1', 'extra', /unknown parameter/i],
  ])('%s → 400 naming %s', async (path, parameter, message) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST', parameter });
    expect(res.body.message).toMatch(message);
    expect(res.body.message).toContain(parameter);
  });
});
