import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestService, TestService } from '../../helpers/test-service';

const aliases = (count: number) =>
  `{ ${Array.from({ length: count }, (_, i) => `a${i}: __typename`).join(' ')} }`;

/** The probe's document of issue 34: 25 KB, 4,996 tokens, within every other limit. */
const REPEATED = `{ ${'categories { id } '.repeat(1249)}}`;

/** The documents refused so far by each work bound (the metric counts them before validation runs). */
async function refusedBefore(service: TestService): Promise<Record<string, number>> {
  const { values } = await service.running.services.metrics.graphqlDocumentsRefused.get();
  return Object.fromEntries(values.map((value) => [String(value.labels.limit), value.value]));
}

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

    it('refuses the 1,249-fold repeated selection before validation, while /healthz answers', async () => {
      expect(REPEATED.length).toBeGreaterThan(22_000);
      const before = (await refusedBefore(service)).merges ?? 0;
      // Ten at once (the probe held /healthz for 5.5 s with these); the deterministic proxy for
      // "no validation work" is that every one of them was refused at the Document node.
      const attacks = Array.from({ length: 10 }, () => service.graphql(undefined, REPEATED));
      const health = await service.request('/healthz');
      expect(health.status).toBe(200);
      for (const res of await Promise.all(attacks)) {
        expect(res.status).toBe(400);
        expect(res.body.data).toBeUndefined();
        expect(res.body.errors).toEqual([
          {
            message:
              'The document selects the same fields too many times ("categories" 1249 times at one place of the ' +
              'result): merging them would take 1558752 comparisons, at most 1000 are allowed. Select each ' +
              'field once at each place.',
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          },
        ]);
      }
      expect((await refusedBefore(service)).merges).toBe(before + 10);
    });

    it('counts repeats through fragments and inline fragments, and answers a few repeats as before', async () => {
      const fragments = Array.from({ length: 60 }, (_, i) => `fragment F${i} on Query { categories { id } }`);
      const spread = await service.graphql(
        undefined,
        `{ ${fragments.map((_, i) => `...F${i}`).join(' ')} } ${fragments.join(' ')}`,
      );
      expect(spread.status).toBe(400);
      expect(spread.body.errors[0].message).toMatch(/"categories" 60 times at one place/);
      const inline = await service.graphql(
        undefined,
        `{ ${'... on Query { categories { id } } '.repeat(60)}}`,
      );
      expect(inline.status).toBe(400);
      expect(inline.body.errors[0].message).toMatch(/"categories" 60 times at one place/);
      // A fragment that spreads the next one twice, 30 deep: 2^30 selections once expanded.
      const bomb = Array.from(
        { length: 30 },
        (_, i) => `fragment B${i} on Query { ...B${i + 1} ...B${i + 1} }`,
      );
      const exploded = await service.graphql(
        undefined,
        `{ ...B0 } ${bomb.join(' ')} fragment B30 on Query { __typename }`,
      );
      expect(exploded.status).toBe(400);
      expect(exploded.body.errors[0].message).toBe(
        'The document selects more than 10000 fields once its fragments are expanded',
      );
      // A field selected twice at one place is merged as GraphQL says, and answered.
      const merged = await service.graphql(undefined, '{ categories { id } categories { name } }');
      expect(merged.status).toBe(200);
      expect(merged.body.data.categories[0]).toEqual({
        id: expect.any(Number),
        name: expect.any(String),
      });
    });

    it('refuses a document of more than GRAPHQL_MAX_OPERATIONS operations before validation', async () => {
      const before = (await refusedBefore(service)).operations ?? 0;
      const many = Array.from({ length: 21 }, (_, i) => `query Q${i} { __typename }`).join(' ');
      const res = await service.graphql(undefined, many);
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toEqual({
        message:
          'The document holds 21 operations, more than 20: send the one to run (with operationName when there are several)',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      });
      expect((await refusedBefore(service)).operations).toBe(before + 1);
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
        GRAPHQL_MAX_FIELD_MERGES: '200',
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

    it('refuses repeated selections over the WebSocket too, before validation', async () => {
      const client = createClient({
        url: service.url.replace(/^http/, 'ws') + '/graphql',
        webSocketImpl: WebSocket,
        connectionParams: { 'x-api-key': apiKey },
        retryAttempts: 0,
        lazy: true,
      });
      clients.push(client);
      const before = (await refusedBefore(service)).merges ?? 0;
      // 95 tokens (within this service's 100): 2 x 253 comparisons, over its GRAPHQL_MAX_FIELD_MERGES of 200.
      const outcome = await new Promise<unknown>((resolve) =>
        client.subscribe(
          { query: `subscription { ${'creditsChanged { credits } '.repeat(23)}}` },
          { next: (value) => resolve(value), error: (error) => resolve(error), complete: () => undefined },
        ),
      );
      expect(outcome).toEqual([
        {
          message: expect.stringMatching(
            /^The document selects the same fields too many times \("creditsChanged" 23 times/,
          ),
        },
      ]);
      expect((await refusedBefore(service)).merges).toBe(before + 1);
    });
  });
});
