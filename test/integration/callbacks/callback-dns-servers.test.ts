import { TargetForbiddenError } from '../../../src/errors';
import { CallbackReceiver, startCallbackReceiver } from '../../helpers/callback-receiver';
import { DnsTestServer } from '../../helpers/dns-test-server';
import { startTestService, TestService } from '../../helpers/test-service';

/**
 * DNS_SERVERS decides every DNS question of the service, callbacks' included: a callback URL on a
 * name only the configured server knows is accepted and delivered (the system resolver has never
 * heard of it).
 */
describe('callbacks resolve their hosts through DNS_SERVERS', () => {
  let dns: DnsTestServer;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    dns = await DnsTestServer.start();
    dns.add('hooks.callbacks-only-here.test', 'A', '127.0.0.1');
    // A public address (TEST-NET is refused): the URL check must find it through DNS_SERVERS.
    dns.add('public-hooks.callbacks-only-here.test', 'A', '93.184.215.14');
    receiver = await startCallbackReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await dns?.close();
  });

  describe('delivery (ALLOW_PRIVATE_TARGETS for the loopback receiver)', () => {
    let service: TestService;
    beforeAll(async () => {
      service = await startTestService({ DNS_SERVERS: dns.address, JOB_POLL_INTERVAL_MS: '20' });
    });
    afterAll(async () => service?.stop());

    it('delivers a callback to a host name only the DNS_SERVERS server knows', async () => {
      const { accountId } = await service.createAccount();
      const { services } = service.running;
      const url = `http://hooks.callbacks-only-here.test:${new URL(receiver.url).port}/callback`;
      await services.db.transaction((m) =>
        services.callbacks.schedule(m, { accountId, url, event: 'list.ready', payload: { id: 'dns' } }),
      );
      const [request] = await receiver.waitFor(1);
      expect(request.path).toBe('/callback');
      expect(JSON.parse(request.body)).toEqual({ id: 'dns' });
      expect(request.headers.host).toBe(`hooks.callbacks-only-here.test:${new URL(receiver.url).port}`);
      expect(dns.queriesFor('hooks.callbacks-only-here.test').length).toBeGreaterThan(0);
    });
  });

  describe('the URL check of an endpoint (private targets refused)', () => {
    let service: TestService;
    beforeAll(async () => {
      service = await startTestService({ DNS_SERVERS: dns.address, ALLOW_PRIVATE_TARGETS: 'false' });
    });
    afterAll(async () => service?.stop());

    it('accepts a name that resolves to a public address through DNS_SERVERS, refuses a private one', async () => {
      const { callbacks } = service.running.services;
      const url = 'https://public-hooks.callbacks-only-here.test/callback';
      await expect(callbacks.validateUrl(url)).resolves.toBe(url);
      expect(dns.queriesFor('public-hooks.callbacks-only-here.test').length).toBeGreaterThan(0);
      await expect(callbacks.validateUrl('https://hooks.callbacks-only-here.test/cb')).rejects.toThrow(
        TargetForbiddenError,
      );
    });
  });
});
