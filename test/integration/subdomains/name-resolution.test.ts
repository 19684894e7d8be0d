import { resolveName } from '../../../src/subdomains/name-resolution';
import { startDnsZoneServer, type DnsZoneServer } from '../../helpers/dns-zone-server';

describe('resolveName against a real DNS server', () => {
  let dns: DnsZoneServer;

  beforeAll(async () => {
    dns = await startDnsZoneServer(
      [
        {
          origin: 'example.test',
          records: {
            'example.test': { NS: ['ns1.example.test'] },
            'v4.example.test': { A: ['192.0.2.1'] },
            'v6.example.test': { AAAA: ['2001:db8::1'] },
            'alias.example.test': { CNAME: 'target.outside.test' },
            'text-only.example.test': { TXT: ['hello'] },
          },
        },
      ],
      { silentNames: ['silent.example.test'] },
    );
  });

  afterAll(() => dns.close());

  const options = () => ({ dnsServers: [dns.server], queryTimeoutMs: 300, tries: 1 });

  it.each([
    ['v4.example.test', 'resolvable'],
    ['v6.example.test', 'resolvable'],
    ['alias.example.test', 'resolvable'],
    ['gone.example.test', 'unresolvable'],
    ['text-only.example.test', 'unresolvable'],
  ])('%s is %s', async (name, expected) => {
    await expect(resolveName(name, options())).resolves.toBe(expected);
  });

  it('says unknown, not unresolvable, when DNS does not answer', async () => {
    await expect(resolveName('silent.example.test', options())).resolves.toBe('unknown');
    await expect(resolveName('v4.example.test', { ...options(), dnsServers: ['127.0.0.1:9'] })).resolves.toBe(
      'unknown',
    );
  });
});
