import { randomBytes } from 'node:crypto';
import { logger } from '../../../src/platform/logger';
import { startTestService, TestService } from '../../helpers/test-service';

describe('failed authentication is throttled per client address (AUTH_FAILURES_PER_MINUTE)', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ AUTH_FAILURES_PER_MINUTE: '5' });
  });
  afterAll(() => service.stop());
  afterEach(() => jest.restoreAllMocks());

  it('answers 403 for the first failures, then 429 with Retry-After for every key, logging no key', async () => {
    const { apiKey } = await service.createAccount();
    const warn = jest.spyOn(logger, 'warn');
    const guesses = Array.from({ length: 5 }, () => `tis_${randomBytes(32).toString('hex')}`);
    for (const guess of guesses) {
      const res = await service.request('/v2/credits/balance/', { key: guess });
      expect(res.status).toBe(403);
    }
    const sixth = await service.request('/v2/credits/balance/', {
      key: 'tis_another_guess_0123456789abcdef',
    });
    expect(sixth.status).toBe(429);
    expect(sixth.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A valid key from the same address is refused too: a guess that hits must look like any other.
    const valid = await service.request('/v2/credits/balance/', { key: apiKey });
    expect(valid.status).toBe(429);
    const overGraphql = await service.graphql(apiKey, '{ creditBalance { credits } }');
    expect(overGraphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');

    const refusals = warn.mock.calls.filter((call) => call[1] === 'API key refused');
    expect(refusals).toHaveLength(5);
    for (const [fields] of refusals) {
      expect(fields).toMatchObject({
        clientIp: expect.stringMatching(/127\.0\.0\.1/),
        reason: 'Invalid API key',
      });
    }
    const logged = JSON.stringify(warn.mock.calls);
    for (const guess of guesses) expect(logged).not.toContain(guess.slice(4, 20));
    // Requests without a key (the public catalogue, /healthz) are not affected.
    expect((await service.request('/healthz')).status).toBe(200);
    expect((await service.request('/v2/categories/')).status).toBe(200);
  });
});
