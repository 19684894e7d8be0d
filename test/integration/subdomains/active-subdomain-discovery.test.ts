import { Resolver } from 'node:dns/promises';
import { discoverSubdomains } from '../../../src/subdomains/active-subdomain-discovery';
import { startDnsZoneServer, type DnsZoneServer } from '../../helpers/dns-zone-server';

describe('discoverSubdomains against a real DNS server', () => {
  let dns: DnsZoneServer;

  beforeAll(async () => {
    dns = await startDnsZoneServer(
      [
        {
          origin: 'plain.test',
          records: {
            'plain.test': { NS: ['ns1.plain.test'] },
            'ns1.plain.test': { A: ['127.0.0.1'] },
            'www.plain.test': { A: ['192.0.2.10'] },
            'api.plain.test': { AAAA: ['2001:db8::10'] },
            'dev.plain.test': { CNAME: 'dev-host.elsewhere.test' },
          },
        },
        {
          origin: 'wild.test',
          records: {
            'wild.test': { NS: ['ns1.wild.test'] },
            '*.wild.test': { A: ['192.0.2.50', '192.0.2.51'] },
            'www.wild.test': { A: ['192.0.2.60'] },
            'mail.wild.test': { A: ['192.0.2.51'] },
          },
        },
        {
          origin: 'open.test',
          allowTransfer: true,
          records: {
            'open.test': { NS: ['ns1.open.test'], MX: [{ priority: 10, exchange: 'mail.open.test' }] },
            'ns1.open.test': { A: ['127.0.0.1'] },
            'mail.open.test': { A: ['192.0.2.20'] },
            'www.open.test': { A: ['192.0.2.21'] },
            'internal-only.open.test': { A: ['10.0.0.1'] },
            'vpn.open.test': { CNAME: 'gw.open.test' },
            '_sip._tcp.open.test': {
              SRV: [{ priority: 0, weight: 0, port: 5060, target: 'voip.open.test' }],
            },
            '*.apps.open.test': { A: ['192.0.2.22'] },
            'partner.open.test': { CNAME: 'portal.partner-company.test' },
          },
        },
      ],
      // Never answered: the deadline test's first name.
      { silentNames: ['host0.plain.test'] },
    );
  });

  afterAll(() => dns.close());

  const base = () => ({ dnsServers: [dns.server], queryTimeoutMs: 1000, concurrency: 3 });
  const names = (result: { observations: Array<{ name: string }> }) =>
    result.observations.map((o) => o.name).sort();

  it('finds wordlist names that resolve by A, AAAA or CNAME and skips those that do not', async () => {
    const result = await discoverSubdomains('plain.test', {
      ...base(),
      wordlist: ['www', 'api', 'dev', 'staging', 'mail'],
    });

    expect(names(result)).toEqual(['api.plain.test', 'dev.plain.test', 'www.plain.test']);
    expect(result.observations.every((o) => o.source === 'wordlist')).toBe(true);
    expect(result).toMatchObject({ wildcard: false, zoneTransfer: false });
  });

  it('detects a wildcard zone and drops names that answer like the wildcard', async () => {
    const result = await discoverSubdomains('wild.test', {
      ...base(),
      wordlist: ['www', 'mail', 'api', 'dev', 'shop'],
    });

    expect(result.wildcard).toBe(true);
    expect(names(result)).toEqual(['www.wild.test']);
  });

  it('probes the requested number of distinct random labels', async () => {
    const before = dns.questions.length;
    await discoverSubdomains('wild.test', { ...base(), wordlist: ['www'], wildcardProbes: 4 });
    const probes = new Set(
      dns.questions
        .slice(before)
        .map((q) => q.name)
        .filter((name) => name !== 'www.wild.test'),
    );

    expect(probes.size).toBe(4);
  });

  it('transfers a zone that allows it and records its names and in-domain targets', async () => {
    const result = await discoverSubdomains('open.test', {
      ...base(),
      wordlist: ['www'],
      zoneTransfer: true,
      zoneTransferPort: dns.port,
      allowPrivateNameServers: true,
    });

    expect(result.zoneTransfer).toBe(true);
    const transferred = result.observations.filter((o) => o.source === 'zone-transfer').map((o) => o.name);
    expect(transferred.sort()).toEqual([
      'apps.open.test',
      'gw.open.test',
      'internal-only.open.test',
      'mail.open.test',
      'ns1.open.test',
      'open.test',
      'partner.open.test',
      'voip.open.test',
      'vpn.open.test',
      'www.open.test',
    ]);
    expect(result.observations).toContainEqual(
      expect.objectContaining({ name: 'www.open.test', source: 'wordlist' }),
    );
  });

  it('does not connect to name servers on private addresses unless allowed', async () => {
    const result = await discoverSubdomains('open.test', {
      ...base(),
      wordlist: [],
      zoneTransfer: true,
      zoneTransferPort: dns.port,
    });

    expect(result.zoneTransfer).toBe(false);
    expect(result.observations).toEqual([]);
  });

  it('reports no transfer when the name server refuses it', async () => {
    const result = await discoverSubdomains('plain.test', {
      ...base(),
      wordlist: [],
      zoneTransfer: true,
      zoneTransferPort: dns.port,
      allowPrivateNameServers: true,
    });

    expect(result).toEqual({ observations: [], wildcard: false, zoneTransfer: false });
  });

  it('does not attempt a transfer unless asked', async () => {
    const before = dns.questions.length;
    const result = await discoverSubdomains('open.test', {
      ...base(),
      wordlist: [],
      zoneTransferPort: dns.port,
    });

    expect(result.zoneTransfer).toBe(false);
    expect(dns.questions.slice(before).some((q) => q.type === 252)).toBe(false);
  });

  it('stops resolving the wordlist at the deadline', async () => {
    const before = dns.questions.length;
    const wordlist = Array.from({ length: 200 }, (_, i) => `host${i}`);
    // host0 is never answered: with concurrency 1 the deadline (1 ms) passes while its question
    // waits (1 s), and once it has passed no new question may start.
    await discoverSubdomains('plain.test', {
      ...base(),
      concurrency: 1,
      wordlist,
      wildcardProbes: 0,
      deadlineMs: 1,
    });
    // A question sent after the run reaches the server after every question of the run.
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([dns.server]);
    await resolver.resolve4('after-the-run.plain.test').catch(() => undefined);
    const asked = dns.questions.slice(before).map((q) => q.name);

    expect(asked).toEqual(['host0.plain.test', 'after-the-run.plain.test']);
  });
});
