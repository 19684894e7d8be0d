import { resolverLookup } from '../../../src/fetch/browser/resolver-lookup';
import { DnsTestServer } from '../../helpers/dns-test-server';

/**
 * The service's own name resolution when DNS_SERVERS is set (page fetches, callbacks, the browser's
 * traffic): answers are reused for a while, but a question left unanswered is an error, never an
 * empty answer kept for later, and a single lost datagram is asked again.
 */
describe('resolverLookup (DNS_SERVERS)', () => {
  let dns: DnsTestServer;

  beforeAll(async () => {
    dns = await DnsTestServer.start();
  });
  afterAll(async () => {
    await dns?.close();
  });

  it('answers with the IPv4 and IPv6 addresses the server gives', async () => {
    dns.add('both.lookup.test', 'A', '127.0.0.7').add('both.lookup.test', 'AAAA', '::1');
    const lookup = resolverLookup([dns.address], 1000);
    expect((await lookup('both.lookup.test')).sort()).toEqual(['127.0.0.7', '::1']);
  });

  it('resolves a name the server does not know to no addresses', async () => {
    const lookup = resolverLookup([dns.address], 1000);
    await expect(lookup('unknown.lookup.test')).resolves.toEqual([]);
  });

  it('fails on a question left unanswered, and asks again on the next lookup', async () => {
    dns.add('late.lookup.test', 'A', '127.0.0.8').fail('late.lookup.test', 'timeout');
    const lookup = resolverLookup([dns.address], 200);
    await expect(lookup('late.lookup.test')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    dns.clearFailure('late.lookup.test');
    await expect(lookup('late.lookup.test')).resolves.toEqual(['127.0.0.8']);
  });

  it('asks again when one datagram goes unanswered', async () => {
    dns.add('lossy.lookup.test', 'A', '127.0.0.9').fail('lossy.lookup.test', 'timeout-once');
    const lookup = resolverLookup([dns.address], 200);
    await expect(lookup('lossy.lookup.test')).resolves.toEqual(['127.0.0.9']);
    const asked = dns.queriesFor('lossy.lookup.test').filter((q) => q.type === 'A');
    expect(asked.length).toBe(2);
  });
});
