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
 * Express's own handler sets them (`res.locals`, `req.res`, `res.req`) and the app's first
 * middleware run, but without Express's router, which matched each layer of the app in turn and
 * made a final handler per request: measured with `npm run bench:hot-path:ab` against the build before
 * (2026-11-24) +15.5% and +25% (sides swapped) stored Lookup v1 requests/s on SQLite, +15.9%
 * Lookup v2, +16.7% Lookup v1 on MariaDB. Everything else goes to the app, where the same
 * middleware and the same facade handler answer it.
 *
 * The server must make its request and response objects with `expressShapedMessages` linked to
 * `app`: they are then Express's objects already, and the lane sets no prototype.
 */
export function withBodylessLane<M>(app: Express, lane: BodylessLane<M>) {
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
 * response objects from the start, once `link` has put the app's prototypes under them: Express
 * (and the lane above) otherwise give each request's two objects a new prototype with
 * `Object.setPrototypeOf`, after Node made them, and a perf profile of the API's main thread under
 * the bench's load spent about 12% of it in V8's property-lookup misses (Runtime_LoadIC_Miss), most
 * under Node's HTTP code and Express's request getters reading those objects. Made before the app
 * (the server exists first), linked to it once it exists.
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
