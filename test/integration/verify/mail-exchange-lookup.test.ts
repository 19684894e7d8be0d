import { createDnsResolver } from '../../../src/fetch/dns-resolver';
import { lookupMailExchange, resolveHostAddresses } from '../../../src/verify/mail-exchange-lookup';
import { DnsTestServer } from '../../helpers/dns-test-server';

describe('lookupMailExchange', () => {
  let dns: DnsTestServer;
  let resolver: ReturnType<typeof createDnsResolver>;
  const signal = new AbortController().signal;

  beforeAll(async () => {
    dns = await DnsTestServer.start();
    resolver = createDnsResolver({ servers: [dns.address], timeoutMs: 1000, tries: 1 });
    dns
      .zone(
        `
        @ MX 30 c.mx
        @ MX 10 A.MX.ordered.test.
        @ MX 20 b.mx
        @ MX 20 b.mx
        `,
        'ordered.test',
      )
      .add('v6only.test', 'AAAA', '::1')
      .add('v4.test', 'A', '127.0.0.1')
      .add('v4.test', 'A', '127.0.0.2')
      .add('v4.test', 'AAAA', '::1')
      .add('nullmx.test', 'MX', '0 .')
      .add('textonly.test', 'TXT', '"hello"')
      .fail('timeout.test', 'timeout')
      .fail('refused.test', 'REFUSED')
      .add('mxfail.test', 'TXT', '"exists"')
      .fail('mxfail.test', 'SERVFAIL');
  });

  afterAll(async () => {
    await dns.close();
  });

  it('orders MX hosts by preference, lower-cased and without duplicates', async () => {
    await expect(lookupMailExchange(resolver, 'ordered.test', signal)).resolves.toEqual({
      status: 'found',
      hosts: ['a.mx.ordered.test', 'b.mx.ordered.test', 'c.mx.ordered.test'],
      implicit: false,
    });
  });

  it('uses the domain itself when it has no MX but an address (AAAA alone is enough)', async () => {
    await expect(lookupMailExchange(resolver, 'v6only.test', signal)).resolves.toEqual({
      status: 'found',
      hosts: ['v6only.test'],
      implicit: true,
    });
  });

  it('tells why a domain cannot receive mail', async () => {
    await expect(lookupMailExchange(resolver, 'nullmx.test', signal)).resolves.toEqual({
      status: 'no-mail',
      reason: 'null-mx',
    });
    await expect(lookupMailExchange(resolver, 'missing.test', signal)).resolves.toEqual({
      status: 'no-mail',
      reason: 'nxdomain',
    });
    await expect(lookupMailExchange(resolver, 'textonly.test', signal)).resolves.toEqual({
      status: 'no-mail',
      reason: 'no-address',
    });
  });

  it('reports DNS failures as failures, never as "no mail"', async () => {
    await expect(lookupMailExchange(resolver, 'timeout.test', signal)).resolves.toEqual({
      status: 'dns-failure',
      code: 'ETIMEOUT',
    });
    await expect(lookupMailExchange(resolver, 'refused.test', signal)).resolves.toEqual({
      status: 'dns-failure',
      code: 'EREFUSED',
    });
    await expect(lookupMailExchange(resolver, 'mxfail.test', signal)).resolves.toEqual({
      status: 'dns-failure',
      code: 'ESERVFAIL',
    });
  });

  it('stops waiting as soon as the verification is out of time, even when DNS still waits', async () => {
    const slow = createDnsResolver({ servers: [dns.address], timeoutMs: 120_000, tries: 1 });
    const controller = new AbortController();
    const lookup = lookupMailExchange(slow, 'timeout.test', controller.signal);
    controller.abort();
    await expect(lookup).resolves.toEqual({ status: 'dns-failure', code: 'ETIMEOUT' });
    slow.cancel();
  }, 5000);
});

describe('resolveHostAddresses', () => {
  let dns: DnsTestServer;
  let resolver: ReturnType<typeof createDnsResolver>;
  const signal = new AbortController().signal;

  beforeAll(async () => {
    dns = await DnsTestServer.start();
    resolver = createDnsResolver({ servers: [dns.address], timeoutMs: 1000, tries: 1 });
    dns.add('both.test', 'AAAA', '::1').add('both.test', 'A', '127.0.0.5').fail('broken.test', 'SERVFAIL');
  });

  afterAll(async () => {
    await dns.close();
  });

  it('lists IPv4 addresses before IPv6 ones', async () => {
    await expect(resolveHostAddresses(resolver, 'both.test', signal)).resolves.toEqual({
      status: 'found',
      addresses: ['127.0.0.5', '::1'],
    });
  });

  it('takes an IP literal as it is, without asking DNS', async () => {
    await expect(resolveHostAddresses(resolver, '192.0.2.7', signal)).resolves.toEqual({
      status: 'found',
      addresses: ['192.0.2.7'],
    });
    expect(dns.queriesFor('192.0.2.7')).toEqual([]);
  });

  it('tells "no address" from a DNS failure', async () => {
    await expect(resolveHostAddresses(resolver, 'missing.test', signal)).resolves.toEqual({
      status: 'found',
      addresses: [],
    });
    await expect(resolveHostAddresses(resolver, 'broken.test', signal)).resolves.toEqual({
      status: 'dns-failure',
      code: 'ESERVFAIL',
    });
  });
});
