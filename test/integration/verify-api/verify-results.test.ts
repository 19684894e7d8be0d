import { expectMatchesContract, fetchOpenApiDocument, OpenApiDocument } from '../../helpers/openapi-contract';
import type { TestService } from '../../helpers/test-service';
import {
  accepted,
  getVerify,
  graphqlVerify,
  HELO_NAME,
  MAIL_FROM,
  mailbox,
  MailWorld,
  UNKNOWN_USER,
} from './verify-api-test-kit';

/**
 * GET /v2/verify/ and the verifyEmail query over the real service, against real DNS and SMTP
 * servers on loopback: one representative address per verdict, every field asserted, and the
 * REST body checked against the served OpenAPI document.
 */
describe('email verification results over REST and GraphQL', () => {
  let world: MailWorld;
  let service: TestService;
  let contract: OpenApiDocument;
  let key: string;

  beforeAll(async () => {
    world = await MailWorld.start();
    await world.scenario('accepted.test', { rcpt: mailbox(['alice@accepted.test', 'admin@accepted.test']) });
    await world.scenario('unknown.test', { rcpt: () => UNKNOWN_USER });
    await world.scenario('catchall.test', { rcpt: () => 'accept' });
    await world.scenario('greylist.test', {
      rcpt: () => ({ code: 450, message: '4.2.0 Greylisted, please try again later' }),
    });
    await world.scenario('mailinator.com', { rcpt: mailbox(['grace@mailinator.com']) });
    service = await world.startService();
    contract = await fetchOpenApiDocument(service.url);
  });

  // A fresh key per test keeps each test under the 5 requests/s limit, so none waits for it.
  beforeEach(async () => {
    key = (await service.createAccount({ plan: 'business', credits: 100 })).apiKey;
  });

  afterAll(async () => {
    await service?.stop();
    await world?.close();
  });

  /** The REST answer for `email`, checked against the contract and the credit headers. */
  async function verifyOverRest(email: string) {
    const res = await getVerify(service, key, email);
    expect(res.status).toBe(200);
    expectMatchesContract(contract, 'GET', '/v2/verify/', 200, res.body, res.headers);
    expect(res.headers.get('service-credits-spent')).toBe('1');
    return res.body;
  }

  it('accepted address → safe, asked with the configured HELO name and sender, never DATA', async () => {
    expect(await verifyOverRest('alice@accepted.test')).toEqual(accepted('alice@accepted.test'));
    const sessions = world.servers.get('accepted.test')!.sessions;
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ helo: HELO_NAME, mailFrom: MAIL_FROM, data: false });
    // The catch-all probe first, then the address itself.
    expect(sessions[0].rcptTo).toHaveLength(2);
    expect(sessions[0].rcptTo[1]).toBe('alice@accepted.test');
  });

  it('unknown user (550 5.1.1) → invalid', async () => {
    expect(await verifyOverRest('bob@unknown.test')).toEqual(
      accepted('bob@unknown.test', { reachable: 'invalid', deliverable: false }),
    );
  });

  it('catch-all domain → risky', async () => {
    expect(await verifyOverRest('anyone@catchall.test')).toEqual(
      accepted('anyone@catchall.test', { reachable: 'risky', catchAll: true }),
    );
  });

  it('greylisting (450) → unknown, never invalid', async () => {
    expect(await verifyOverRest('carol@greylist.test')).toEqual(
      accepted('carol@greylist.test', { reachable: 'unknown', deliverable: false }),
    );
  });

  it('disposable domain → risky', async () => {
    expect(await verifyOverRest('grace@mailinator.com')).toEqual(
      accepted('grace@mailinator.com', { reachable: 'risky', disposable: true }),
    );
  });

  it('role address → risky', async () => {
    expect(await verifyOverRest('admin@accepted.test')).toEqual(
      accepted('admin@accepted.test', { reachable: 'risky', roleAccount: true }),
    );
  });

  it('bad syntax → invalid, with no DNS query and no SMTP connection', async () => {
    const before = world.dns.queries.length;
    expect(await verifyOverRest('alice..smith@syntax.test')).toEqual({
      email: 'alice..smith@syntax.test',
      domain: 'syntax.test',
      reachable: 'invalid',
      disposable: false,
      roleAccount: false,
      mxValid: false,
      connection: false,
      inboxFull: false,
      catchAll: false,
      deliverable: false,
      disabled: false,
      syntaxValid: false,
    });
    expect(world.dns.queries.slice(before)).toEqual([]);
  });

  it('a domain that does not exist (NXDOMAIN) → invalid, mxValid false', async () => {
    expect(await verifyOverRest('dan@nowhere.test')).toEqual(
      accepted('dan@nowhere.test', {
        reachable: 'invalid',
        mxValid: false,
        connection: false,
        deliverable: false,
      }),
    );
  });

  it('serves the path without its trailing slash too', async () => {
    const res = await getVerify(service, key, 'alice@accepted.test', '/v2/verify');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(accepted('alice@accepted.test'));
  });

  it.each([
    'alice@accepted.test',
    'bob@unknown.test',
    'anyone@catchall.test',
    'carol@greylist.test',
    'alice..smith@syntax.test',
  ])('the GraphQL query gives the same result as REST for %s', async (email) => {
    const rest = await getVerify(service, key, email);
    const gql = await graphqlVerify(service, key, email);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.verifyEmail).toEqual(rest.body);
  });

  describe('hostile input', () => {
    it('refuses a 10 KB email with 400 naming email, over REST and GraphQL, without charging', async () => {
      const huge = `${'a'.repeat(10_240)}@accepted.test`;
      const before = (await service.request('/v2/credits/balance/', { key })).body.credits;
      const rest = await getVerify(service, key, huge);
      expect(rest.status).toBe(400);
      expect(rest.body).toMatchObject({ code: 'BAD_REQUEST', parameter: 'email' });
      expectMatchesContract(contract, 'GET', '/v2/verify/', 400, rest.body);
      const gql = await graphqlVerify(service, key, huge);
      expect(gql.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: 'email' });
      expect((await service.request('/v2/credits/balance/', { key })).body.credits).toBe(before);
    });

    it.each([
      ['a NUL byte', 'ali\u0000ce@accepted.test'],
      ['an SMTP command smuggled after CRLF', 'alice@accepted.test\r\nRCPT TO:<x@accepted.test>'],
      ['a CRLF in the local part', 'al\r\nDATA\r\nice@accepted.test'],
      ['a bell and an escape', '\u0007alice\u001b@accepted.test'],
      ['angle brackets', '<alice@accepted.test>'],
    ])(
      'answers %s with an invalid result (never 500) and never reaches the mail server',
      async (_, email) => {
        const sessions = world.servers.get('accepted.test')!.sessions.length;
        for (const res of [await getVerify(service, key, email), await graphqlVerify(service, key, email)]) {
          expect(res.status).toBe(200);
          const result = res.body.data?.verifyEmail ?? res.body;
          expect(result).toMatchObject({ reachable: 'invalid', syntaxValid: false, connection: false });
        }
        expect(world.servers.get('accepted.test')!.sessions).toHaveLength(sessions);
      },
    );
  });
});
