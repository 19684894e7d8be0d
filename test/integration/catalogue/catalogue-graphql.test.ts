import { startTestService, TestService } from '../../helpers/test-service';

/**
 * The public catalogue over /graphql costs what its REST twin costs: counted per address before
 * anything runs, each public list selected once per operation, and a public-only operation
 * answered from the answer kept for it while the catalogue's entity tag holds.
 */
describe('the public catalogue over GraphQL', () => {
  let service: TestService;
  let listed = 0;

  beforeAll(async () => {
    service = await startTestService({ PUBLIC_RATE_LIMIT_PER_MINUTE: '4', CATALOGUE_CACHE_SECONDS: '600' });
    // Counts the catalogue's list reads (the work a technologies field costs), calling through.
    const { catalogue } = service.running.services;
    const read = catalogue.technologies.bind(catalogue);
    catalogue.technologies = () => {
      listed += 1;
      return read();
    };
  });
  afterAll(() => service.stop());

  const aliases = (n: number) =>
    `{ ${Array.from({ length: n }, (_, i) => `t${i}: technologies { slug name categories { slug } }`).join(' ')} }`;

  it('refuses aliases of a public list before any of them runs', async () => {
    const res = await service.graphql(undefined, aliases(15));
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      message: expect.stringContaining('technologies may be selected once per operation'),
      extensions: { code: 'BAD_REQUEST' },
    });
    expect(listed).toBe(0);
  });

  it('answers a repeated public operation from the kept answer, counts each request once, before its work', async () => {
    const query = '{ technologies { slug name } categories { slug } }';
    const first = await service.graphql(undefined, query);
    expect(first.status).toBe(200);
    expect(first.body.data.technologies.length).toBeGreaterThan(1000);
    expect(listed).toBe(1);
    const again = await service.graphql(undefined, query);
    expect(again.text).toBe(first.text);
    expect(listed).toBe(1);
    // The refused document above counted nothing: 4 a minute, two used.
    expect((await service.graphql(undefined, '{ technology(slug: "wordpress") { slug } }')).status).toBe(200);
    expect((await service.graphql(undefined, '{ categories { id } }')).status).toBe(200);
    const limited = await service.graphql(undefined, aliases(1));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(listed).toBe(1);
  });
});
