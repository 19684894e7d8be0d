import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, NextFunction, Request, Response } from 'express';

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

export interface BodylessLane<M> {
  /** The route of a GET that carries no body and that the lane answers, or null. */
  match(req: Request): M | null;
  /** What runs first for every request (request id, metrics), in order; none ever calls next with an error. */
  before: readonly Middleware[];
  /** Answers the request (errors included: it never rejects). */
  serve(req: Request, res: Response, match: M): Promise<void>;
}

/**
 * Node's request listener: a GET without a body that a REST facade route answers (every stored
 * lookup among them) goes to the facade with Express's request and response objects set up as
 * Express's own handler sets them (`res.locals`, `req.res`, `res.req`) and `before` run, but
 * without Express's router, which matches each layer of the app in turn and makes a final handler
 * per request (figures in docs/performance.md). Everything else goes to the app.
 *
 * The lane and the app must run the same middleware in the same order, so this mounts them on the
 * app itself, first: `before`, then the facade's routes that take no body (for the requests the
 * app gets, HEAD among them); it refuses an app that already has a layer, which the lane would
 * skip. Call it right after creating the app, and mount everything else after it.
 *
 * The server must make its request and response objects with `expressShapedMessages` linked to
 * `app`: they are then Express's objects already, and the lane sets no prototype.
 */
export function withBodylessLane<M>(app: Express, lane: BodylessLane<M>) {
  if (app.router.stack.length > 0)
    throw new Error(
      'withBodylessLane must mount its middleware before any other: the lane answers without the app, and would skip what was mounted before it',
    );
  for (const middleware of lane.before) app.use(middleware);
  app.use((req: Request, res: Response, next: NextFunction) => {
    const match = lane.match(req);
    return match === null ? next() : lane.serve(req, res, match);
  });
  return (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    if (incoming.method === 'GET') {
      const req = incoming as Request;
      const res = outgoing as Response;
      // As Express's app.handle does; Express does it again (to no effect) when the app takes it.
      req.res = res;
      res.req = req;
      const match = lane.match(req);
      if (match !== null) {
        res.locals = Object.create(null) as Response['locals'];
        const step = (i: number): void => {
          if (i < lane.before.length) lane.before[i](req, res, () => step(i + 1));
          else void lane.serve(req, res, match);
        };
        step(0);
        return;
      }
    }
    app(incoming, outgoing);
  };
}

/**
 * Request and response classes for `http.createServer` whose instances are Express's request and
 * response objects from the start, once `link` has put the app's prototypes under them, because
 * Express otherwise gives each request's two objects a new prototype after Node made them, which
 * sends V8's property lookups on them down their slow path (docs/performance.md). Made before the
 * app (the server exists first), linked to it once it exists. Pinned by the test "makes Express's
 * request and response objects as Node creates them" (test/integration/platform/rest-facade.test.ts).
 */
export function expressShapedMessages() {
  class ExpressShapedRequest extends IncomingMessage {}
  class ExpressShapedResponse extends ServerResponse<ExpressShapedRequest> {}
  return {
    IncomingMessage: ExpressShapedRequest,
    ServerResponse: ExpressShapedResponse,
    link(app: Express): void {
      Object.setPrototypeOf(ExpressShapedRequest.prototype, app.request);
      Object.setPrototypeOf(ExpressShapedResponse.prototype, app.response);
      // The app's own prototypes become these, which inherit from them: Express's app.handle
      // still sets each request's prototype to app.request (every request the lane does not
      // take: POST /graphql, HEAD, bodies), and setting the one an object already has is no change.
      app.request = ExpressShapedRequest.prototype as unknown as Express['request'];
      app.response = ExpressShapedResponse.prototype as unknown as Express['response'];
    },
  };
}

export type ExpressShapedMessages = ReturnType<typeof expressShapedMessages>;
