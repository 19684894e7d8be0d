import { expectMatchesContract, fetchOpenApiDocument, OpenApiDocument } from '../../helpers/openapi-contract';
import type { TestService } from '../../helpers/test-service';
import { accepted, getVerify, graphqlVerify, mailbox, MailWorld } from './verify-api-test-kit';

/**
 * The platform rules around GET /v2/verify/: the Business-plan gate, 1 credit per address answered
 * (whatever the verdict), refusal when the balance is short, the 5 requests/s limit, and a missing
 * email parameter.
 */
describe('email verification rules', () => {
  let world: MailWorld;
  let service: TestService;
  let contract: OpenApiDocument;

  const balanceOf = async (key: string) =>
    (await service.request('/v2/credits/balance/', { key })).body.credits;

  beforeAll(async () => {
    world = await MailWorld.start();
    await world.scenario('accepted.test', { rcpt: mailbox(['alice@accepted.test', 'bob@accepted.test']) });
    // Accepts the connection and never greets: the verification ends on its own reply timeout.
    await world.scenario('silent.test', { greeting: 'silent' });
    service = await world.startService();
    contract = await fetchOpenApiDocument(service.url);
  });

  afterAll(async () => {
    await service?.stop();
    await world?.close();
  });

  it('needs the Business plan: 403 naming the plan, nothing charged, no SMTP', async () => {
    for (const plan of ['small', 'medium', 'large']) {
      const { apiKey } = await service.createAccount({ plan, credits: 100 });
      const rest = await getVerify(service, apiKey, 'alice@accepted.test');
      expect(rest.status).toBe(403);
      expect(rest.body.code).toBe('PLAN_REQUIRED');
      expect(rest.body.message).toMatch(/business plan/i);
      expectMatchesContract(contract, 'GET', '/v2/verify/', 403, rest.body);
      const gql = await graphqlVerify(service, apiKey, 'alice@accepted.test');
      expect(gql.body.errors[0].extensions.code).toBe('PLAN_REQUIRED');
      expect(gql.body.errors[0].message).toMatch(/business plan/i);
      expect(await balanceOf(apiKey)).toBe(100);
    }
    expect(world.servers.get('accepted.test')!.sessions).toHaveLength(0);
  });

  it('charges 1 credit per address answered, whatever the verdict, cached answers included', async () => {
    const { apiKey } = await service.createAccount({ plan: 'business', credits: 10 });
    const emails = [
      'alice@accepted.test', // safe
      'alice@accepted.test', // the same, from the cache
      'not-an-address', // invalid syntax: answered without DNS or SMTP
      'eve@silent.test', // unknown: our own reply timeout ran out
    ];
    let balance = 10;
    for (const email of emails) {
      const res = await getVerify(service, apiKey, email);
      expect(res.status).toBe(200);
      balance -= 1;
      expect(res.headers.get('service-credits-spent')).toBe('1');
      expect(res.headers.get('service-credits-remaining')).toBe(String(balance));
    }
    expect(await balanceOf(apiKey)).toBe(balance);
    const gql = await graphqlVerify(service, apiKey, 'alice@accepted.test');
    expect(gql.body.data.verifyEmail).toEqual(accepted('alice@accepted.test'));
    expect(await balanceOf(apiKey)).toBe(balance - 1);
  });

  it('reports a silent server as unknown, without a connection', async () => {
    const { apiKey } = await service.createAccount({ plan: 'business', credits: 10 });
    const res = await getVerify(service, apiKey, 'frank@silent.test');
    expect(res.body).toEqual(
      accepted('frank@silent.test', { reachable: 'unknown', connection: false, deliverable: false }),
    );
  });

  it('refuses with 403 when the balance cannot pay, before any SMTP', async () => {
    const { apiKey } = await service.createAccount({ plan: 'business', credits: 1 });
    expect((await getVerify(service, apiKey, 'alice@accepted.test')).status).toBe(200);
    const sessions = world.servers.get('accepted.test')!.sessions.length;
    const res = await getVerify(service, apiKey, 'bob@accepted.test');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'INSUFFICIENT_CREDITS', needed: 1, available: 0 });
    expectMatchesContract(contract, 'GET', '/v2/verify/', 403, res.body);
    expect(world.servers.get('accepted.test')!.sessions).toHaveLength(sessions);
    expect(await balanceOf(apiKey)).toBe(0);
  });

  it('limits a key to 5 requests per second (429 with Retry-After)', async () => {
    const { apiKey } = await service.createAccount({ plan: 'business', credits: 100 });
    // The twelve fall in one instant of the limits' clock, however long they take to answer.
    service.clock.freeze();
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => service.request('/v2/verify/?email=not-an-address', { key: apiKey })),
    ).finally(() => service.clock.resume());
    const limited = responses.filter((r) => r.status === 429);
    expect(limited).toHaveLength(7);
    expect(limited[0].body.code).toBe('RATE_LIMITED');
    expect(limited[0].headers.get('retry-after')).toBe('1');
    expectMatchesContract(contract, 'GET', '/v2/verify/', 429, limited[0].body);
    const answered = responses.filter((r) => r.status === 200).length;
    expect(answered).toBe(5);
    // Refused requests are not charged.
    expect(await balanceOf(apiKey)).toBe(100 - answered);
  });

  it('refuses a missing or empty email with 400 naming email, without charging', async () => {
    const { apiKey } = await service.createAccount({ plan: 'business', credits: 10 });
    for (const path of ['/v2/verify/', '/v2/verify', '/v2/verify/?email=', '/v2/verify/?email=%20%20']) {
      const res = await service.request(path, { key: apiKey });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'BAD_REQUEST', parameter: 'email' });
      expect(res.body.message).toContain('email');
      expectMatchesContract(contract, 'GET', path, 400, res.body);
    }
    const gql = await graphqlVerify(service, apiKey, '');
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: 'email' });
    // One rule, one message: the facade leaves the email's bounds to the service behind GraphQL.
    const rest = await service.request('/v2/verify/?email=', { key: apiKey });
    expect(rest.body.message).toBe(gql.body.errors[0].message);
    expect(await balanceOf(apiKey)).toBe(10);
  });
});
