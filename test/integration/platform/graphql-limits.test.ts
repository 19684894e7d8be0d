import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestService, TestService } from '../../helpers/test-service';

const aliases = (count: number) =>
  `{ ${Array.from({ length: count }, (_, i) => `a${i}: __typename`).join(' ')} }`;

describe('GraphQL document limits (GRAPHQL_MAX_*)', () => {
  describe('with the default limits', () => {
    let service: TestService;

    beforeAll(async () => {
      service = await startTestService();
    });
    afterAll(() => service.stop());

    it('refuses a 45,000-alias document (0.9 MB, no key) at the parser while /healthz stays responsive', async () => {
      const huge = aliases(45_000);
      expect(huge.length).toBeGreaterThan(800_000);
      const attacks = Array.from({ length: 3 }, () => service.graphql(undefined, huge));
      const health = await service.request('/healthz');
      expect(health.status).toBe(200);
      for (const res of await Promise.all(attacks)) {
        expect(res.status).toBe(400);
        expect(res.body.errors[0].message).toMatch(/more that 5000 tokens/);
        expect(res.body.data).toBeUndefined();
      }
    });

    it('answers 15 aliases and refuses 16 before execution, with a message naming the limit', async () => {
      const fifteen = await service.graphql(undefined, aliases(15));
      expect(fifteen.status).toBe(200);
      expect(Object.keys(fifteen.body.data)).toHaveLength(15);
      const sixteen = await service.graphql(undefined, aliases(16));
      expect(sixteen.status).toBe(400);
      expect(sixteen.body.errors[0]).toMatchObject({
        message: expect.stringMatching(/Aliases limit of 15 exceeded, found 16/),
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      });
      expect(sixteen.body.data).toBeUndefined();
    });
  });

  describe('with limits lowered by settings', () => {
    let service: TestService;
    let apiKey: string;
    const clients: Client[] = [];

    beforeAll(async () => {
      service = await startTestService({
        GRAPHQL_MAX_TOKENS: '100',
        GRAPHQL_MAX_DEPTH: '2',
        GRAPHQL_MAX_COST: '10',
        GRAPHQL_MAX_DIRECTIVES: '1',
      });
      ({ apiKey } = await service.createAccount({ plan: 'small' }));
    });
    afterAll(async () => {
      await Promise.all(clients.map((client) => client.dispose()));
      await service.stop();
    });

    it('refuses a document deeper than GRAPHQL_MAX_DEPTH, and answers one within it', async () => {
      const shallow = await service.graphql(apiKey, '{ account { id } }');
      expect(shallow.status).toBe(200);
      const deep = await service.graphql(apiKey, '{ account { keys { id } } }');
      expect(deep.status).toBe(400);
      expect(deep.body.errors[0].message).toMatch(/Query depth limit of 2 exceeded/);
    });

    it('refuses documents over GRAPHQL_MAX_COST, GRAPHQL_MAX_DIRECTIVES and GRAPHQL_MAX_TOKENS', async () => {
      const costly = await service.graphql(apiKey, '{ account { id name email plan credits createdAt } }');
      expect(costly.status).toBe(400);
      expect(costly.body.errors[0].message).toMatch(/Query Cost limit of 10 exceeded/);
      const directives = await service.graphql(
        apiKey,
        '{ account { id @include(if: true) name @include(if: true) } }',
      );
      expect(directives.status).toBe(400);
      expect(directives.body.errors[0].message).toMatch(/Directives limit of 1 exceeded/);
      const long = await service.graphql(apiKey, aliases(40));
      expect(long.status).toBe(400);
      expect(long.body.errors[0].message).toMatch(/more that 100 tokens/);
    });

    it('applies the same limits to operations sent over the WebSocket', async () => {
      const client = createClient({
        url: service.url.replace(/^http/, 'ws') + '/graphql',
        webSocketImpl: WebSocket,
        connectionParams: { 'x-api-key': apiKey },
        retryAttempts: 0,
        lazy: true,
      });
      clients.push(client);
      const outcome = await new Promise<unknown>((resolve) =>
        client.subscribe(
          { query: aliases(40) },
          { next: (value) => resolve(value), error: (error) => resolve(error), complete: () => undefined },
        ),
      );
      expect(JSON.stringify(outcome)).toMatch(/more that 100 tokens/);
    });
  });
});
