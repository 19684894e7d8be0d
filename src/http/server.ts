import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer, ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { GraphQLError, GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { buildContext, GraphQLContext } from '../resolvers/context';
import { clientAddress, requestOrigin } from '../rest-facade/request-origin';
import { documentLimitsOf, parseWithinLimits } from './document-limits';
import { formatGraphQLError } from './format-error';
import { introspectionPolicyPlugin, webSocketValidation } from './introspection-policy';
import { ApiKeyRevokedEvent, EventBus, TOPICS } from '../platform/event-bus';
import { logger } from '../platform/logger';
import type { Services } from '../services/services';
import { createApp } from './app';
import { expressShapedMessages } from './bodyless-lane';
import { publicOperationsPlugin } from './public-operations';
import { publicRootFields } from '../resolvers/build-schema';
import { WebSocketSessions } from './websocket-sessions';

export interface RunningHttpServer {
  server: Server;
  port: number;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to the grace time), closes sockets. */
  close(): Promise<void>;
}

/** The credit headers on /graphql responses too, from the same meter the REST facade reads. */
function creditHeadersPlugin(prefix: string): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ contextValue, response }) {
          const caller = contextValue.caller;
          if (!caller || caller.meter.remaining === null) return;
          response.http.headers.set(`${prefix}-credits-spent`, String(caller.meter.spent));
          response.http.headers.set(`${prefix}-credits-remaining`, String(caller.meter.remaining));
        },
      };
    },
  };
}

/** The server could not listen; the message says what to change (main prints it without a stack). */
export class ListenError extends Error {}

function listenErrorOf(error: NodeJS.ErrnoException, port: number): Error {
  if (error.code === 'EADDRINUSE') return new ListenError(`port ${port} is in use (set PORT)`);
  if (error.code === 'EACCES') return new ListenError(`port ${port} needs privileges (set PORT)`);
  if (error.code === 'EADDRNOTAVAIL') return new ListenError(`the address is not available here (set HOST)`);
  return error;
}

/** Ends the sessions of every key a revocation event names (this process, another, the CLI with REDIS_URL). */
function closeSessionsOfRevokedKeys(events: EventBus, sessions: WebSocketSessions): () => void {
  const revoked = events.subscribe(TOPICS.apiKeyRevoked)[Symbol.asyncIterator]();
  const next = (): void => {
    void revoked.next().then((result) => {
      if (result.done) return;
      sessions.closeRevoked((result.value as ApiKeyRevokedEvent).keyId);
      next();
    });
  };
  next();
  return () => void revoked.return?.();
}

/** Subscriptions run over graphql-ws; over HTTP they are refused with a 400 that says so. */
function subscriptionsOverWebSocketPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation }) {
          if (operation?.operation !== 'subscription') return;
          throw new GraphQLError(
            'Subscriptions are served over WebSocket (graphql-ws) at /graphql, not over HTTP',
            {
              extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
            },
          );
        },
      };
    },
  };
}

export async function startHttpServer(services: Services, schema: GraphQLSchema): Promise<RunningHttpServer> {
  const { config } = services;
  const limits = documentLimitsOf(config, (limit) => services.metrics.graphqlDocumentsRefused.inc({ limit }));
  const messages = expressShapedMessages();
  const httpServer = createServer({
    IncomingMessage: messages.IncomingMessage,
    ServerResponse: messages.ServerResponse,
    // Node checks its request and headers deadlines this often (30 s by default, which let a
    // client trickling a body hold its connection 83 s under a 60 s deadline).
    connectionsCheckingInterval: Math.min(1000, Math.ceil(config.REQUEST_TIMEOUT_MS / 4)),
  });
  // noServer: the WebSocket server gets only the upgrades of /graphql, and never re-emits the HTTP
  // server's errors (a port in use would otherwise be reported twice, with stack traces).
  const wsServer = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const sessions = new WebSocketSessions(
    { perKey: config.WS_MAX_SESSIONS_PER_KEY, perAddress: config.WS_MAX_SESSIONS_PER_ADDRESS },
    services.metrics.webSocketSessions,
  );
  httpServer.on('upgrade', (request, socket, head) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/graphql') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wsServer.handleUpgrade(request, socket, head, (ws) => {
      // Past the address's cap the socket is closed (1008) before graphql-ws ever sees it.
      if (sessions.admit(ws, clientAddress(request, config.TRUST_PROXY)))
        wsServer.emit('connection', ws, request);
    });
  });
  // A revocation ends the key's sessions as soon as this process learns of it: an apiKeyRevoked
  // event (this process, another one or the CLI, through Redis), or a row of key_revocations read
  // by a request's or an event's catch-up (without Redis) or by the periodic re-check below.
  const stopApplied = services.auth.onRevoked(({ keyId }) => sessions.closeRevoked(keyId));
  const stopRevocations = closeSessionsOfRevokedKeys(services.events, sessions);
  const recheck = setInterval(() => {
    void services.auth
      .catchUpRevocations()
      .then(() => services.auth.revokedAmong(sessions.keyIds()))
      .then((revoked) => revoked.forEach((keyId) => sessions.closeRevoked(keyId)))
      .catch((error: unknown) => logger.warn({ err: error }, 'could not re-check WebSocket keys'));
  }, config.WS_KEY_RECHECK_MS);
  recheck.unref();
  const introspectionCheck = webSocketValidation(config.GRAPHQL_INTROSPECTION);
  const wsCleanup = useServer<Record<string, unknown>, { contextBuilt?: GraphQLContext }>(
    {
      schema,
      // The key travels in the connection parameters (browsers cannot set WebSocket headers);
      // an x-api-key header on the upgrade request is accepted too. A bad key closes the socket (4403).
      onConnect: async (ctx) => {
        // A key revoked before this connection is refused by it (cached or not: see AuthService).
        await services.auth.seeRevocations();
        const key =
          keyFrom(ctx.connectionParams) ?? (ctx.extra.request.headers['x-api-key'] as string | undefined);
        const context = await buildContext(
          services,
          key,
          randomUUID(),
          clientAddress(ctx.extra.request, config.TRUST_PROXY),
          requestOrigin(ctx.extra.request, config.TRUST_PROXY),
        );
        if (!context.caller) return false;
        // Past the key's cap the socket is closed (1008); graphql-ws' own close (4403) then does nothing.
        if (!sessions.bind(ctx.extra.socket, context.caller.principal.keyId)) return false;
        ctx.extra.contextBuilt = context;
        return true;
      },
      context: (ctx) => ctx.extra.contextBuilt!,
      // Before each event is sent, the revocations committed before it are applied: a revoked key's
      // session is closed first, and graphql-ws sends nothing on a closing socket. (Without Redis a
      // read of key_revocations, on MariaDB shared by the events of the moment; with it, nothing.)
      onNext: async () => {
        await services.auth.seeRevocations();
      },
      // The same document limits as /graphql over HTTP, checked before anything runs.
      onSubscribe: (_ctx, _id, payload) => {
        const checked = parseWithinLimits(schema, payload.query, limits);
        if ('errors' in checked) return checked.errors;
        // onSubscribe's own arguments skip graphql-ws's validation: the introspection policy is applied here.
        const refused = introspectionCheck?.(schema, checked.document) ?? [];
        if (refused.length > 0) return refused;
        return {
          schema,
          document: checked.document,
          operationName: payload.operationName,
          variableValues: payload.variables,
        };
      },
    },
    wsServer,
  );

  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    formatError: formatGraphQLError,
    includeStacktraceInErrorResponses: false,
    introspection: true,
    parseOptions: limits.parseOptions,
    validationRules: limits.validationRules,
    // Apollo would install its own SIGTERM/SIGINT handlers that stop it and then re-raise the signal,
    // killing the process before main.ts finishes the graceful stop (database, job leases, exit 0).
    stopOnTerminationSignals: false,
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer }),
      ApolloServerPluginLandingPageDisabled(),
      // Apollo's default cache-control plugin wraps every field's resolver to work out a cache
      // policy from @cacheControl hints, which this schema has none of (answers are metered per
      // request and must not be cached by proxies). Without it, a profile of Lookup v1 POSTed to
      // /graphql fell from 1,806 to 1,156 µs of CPU per request (the wrappers and their garbage).
      ApolloServerPluginCacheControlDisabled(),
      creditHeadersPlugin(config.HEADER_PREFIX),
      introspectionPolicyPlugin(config.GRAPHQL_INTROSPECTION),
      subscriptionsOverWebSocketPlugin(),
      publicOperationsPlugin(services, publicRootFields()),
      {
        async serverWillStart() {
          return {
            async drainServer() {
              await wsCleanup.dispose();
            },
          };
        },
      },
    ],
  });
  await apollo.start();
  const app = await createApp(services, schema, apollo, messages);
  httpServer.on('request', app);
  // CONNECT (a proxy request) bypasses the request handler; without a listener Node drops the
  // socket without a word. Answer it like any unsupported method.
  httpServer.on('connect', (_request, socket) => {
    const requestId = randomUUID();
    const body = JSON.stringify({
      code: 'METHOD_NOT_ALLOWED',
      message: 'CONNECT is not supported: this is not a proxy',
      requestId,
    });
    socket.end(
      'HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, POST\r\nContent-Type: application/json; charset=utf-8\r\n' +
        `x-request-id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  // A client has REQUEST_TIMEOUT_MS to send its whole request, headers and body, and 20 s of it for
  // the headers; past either, Node answers 408 and closes the connection. (Answering takes as long
  // as it takes: the deadlines end when the request has been received.)
  httpServer.requestTimeout = config.REQUEST_TIMEOUT_MS;
  httpServer.headersTimeout = Math.min(20_000, config.REQUEST_TIMEOUT_MS);

  try {
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(config.PORT, config.HOST, () => {
        httpServer.removeListener('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await apollo.stop();
    throw listenErrorOf(error as NodeJS.ErrnoException, config.PORT);
  }
  const port = (httpServer.address() as AddressInfo).port;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  logger.info({ port }, 'HTTP server listening');

  return {
    server: httpServer,
    port,
    url: `http://${host}:${port}`,
    async close() {
      clearInterval(recheck);
      stopRevocations();
      stopApplied();
      const forced = setTimeout(() => httpServer.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
      forced.unref();
      await apollo.stop();
      clearTimeout(forced);
    },
  };
}

function keyFrom(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!params) return undefined;
  for (const [name, value] of Object.entries(params)) {
    if (name.toLowerCase() === 'x-api-key' || name === 'apiKey')
      return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}
