import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { expressShapedMessages, withBodylessLane } from '../../../src/http/bodyless-lane';

/** A lane whose route is /lane, whose `before` writes down the order it runs in. */
function laneOf(calls: string[]) {
  const mark =
    (name: string) =>
    (_req: Request, _res: Response, next: NextFunction): void => {
      calls.push(name);
      next();
    };
  return {
    match: (req: Request) => (req.path === '/lane' ? 'lane' : null),
    before: [mark('first'), mark('second')],
    serve: async (_req: Request, res: Response, match: string) => {
      calls.push(`serve ${match}`);
      res.end('served');
    },
  };
}

describe('the bodyless lane (src/http/bodyless-lane.ts)', () => {
  let server: Server;
  let calls: string[];

  beforeAll(async () => {
    calls = [];
    const messages = expressShapedMessages();
    server = createServer({
      IncomingMessage: messages.IncomingMessage,
      ServerResponse: messages.ServerResponse,
    });
    const app = express();
    messages.link(app);
    const listener = withBodylessLane(app, laneOf(calls));
    app.use((_req, res) => {
      calls.push('app');
      res.end('app');
    });
    server.on('request', listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const send = (method: string, path: string) =>
    new Promise<number>((resolve, reject) => {
      const { port } = server.address() as AddressInfo;
      request({ host: '127.0.0.1', port, method, path }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
        .on('error', reject)
        .end();
    });

  it('refuses an app that already has a layer, which the lane would skip', () => {
    const app = express();
    app.use((_req, _res, next) => next());
    expect(() => withBodylessLane(app, laneOf([]))).toThrow(/before any other/);
  });

  it('runs the same middleware in the same order for a GET it answers and for a request the app answers', async () => {
    calls.length = 0;
    await send('GET', '/lane');
    const byLane = [...calls];
    calls.length = 0;
    await send('HEAD', '/lane');
    const byApp = [...calls];
    calls.length = 0;
    await send('GET', '/elsewhere');
    expect(byLane).toEqual(['first', 'second', 'serve lane']);
    expect(byApp).toEqual(byLane);
    expect(calls).toEqual(['first', 'second', 'app']);
  });
});
