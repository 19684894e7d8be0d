import { createServer, type Server } from 'node:net';
import { DNS_TYPE } from '../../../src/subdomains/dns-wire-codec';
import { transferZone } from '../../../src/subdomains/zone-transfer-client';
import { startDnsZoneServer, type DnsZoneServer } from '../../helpers/dns-zone-server';

describe('transferZone over TCP', () => {
  let dns: DnsZoneServer;
  let garbage: Server;
  let garbagePort: number;

  beforeAll(async () => {
    dns = await startDnsZoneServer(
      [
        {
          origin: 'open.test',
          allowTransfer: true,
          records: {
            'open.test': { NS: ['ns1.open.test'] },
            'a.open.test': { A: ['192.0.2.1'] },
            'b.open.test': { A: ['192.0.2.2'] },
            'c.open.test': { CNAME: 'a.open.test' },
            'd.open.test': { MX: [{ priority: 5, exchange: 'a.open.test' }] },
          },
        },
        { origin: 'closed.test', records: { 'closed.test': { NS: ['ns1.closed.test'] } } },
      ],
      { transferRecordsPerMessage: 2 },
    );
    // A server that answers with a well-framed message that is not DNS at all. It reads (and
    // drops) the query so that it sees the client's close and the server can shut down.
    garbage = createServer((socket) => socket.resume().end(Buffer.from([0, 4, 1, 2, 3, 4])));
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    garbagePort = (garbage.address() as { port: number }).port;
  });

  afterAll(async () => {
    await dns.close();
    await new Promise((resolve) => garbage.close(resolve));
  });

  const options = (port: number) => ({ host: '127.0.0.1', port, timeoutMs: 2000, maxRecords: 1000 });

  it('reads a zone sent over several messages, from SOA to SOA', async () => {
    const result = await transferZone('open.test', options(dns.port));

    expect(result.complete).toBe(true);
    expect(result.records[0]).toMatchObject({ name: 'open.test', type: DNS_TYPE.SOA });
    expect(result.records.map((r) => r.name)).toEqual(
      expect.arrayContaining(['a.open.test', 'b.open.test', 'c.open.test', 'd.open.test']),
    );
    expect(result.records).toContainEqual({
      name: 'c.open.test',
      type: DNS_TYPE.CNAME,
      targets: ['a.open.test'],
    });
    expect(result.records).toContainEqual({
      name: 'd.open.test',
      type: DNS_TYPE.MX,
      targets: ['a.open.test'],
    });
  });

  it('keeps what arrived but reports an incomplete transfer when the zone exceeds maxRecords', async () => {
    const result = await transferZone('open.test', { ...options(dns.port), maxRecords: 3 });

    expect(result.complete).toBe(false);
    expect(result.records).toHaveLength(3);
  });

  it('reports a refused transfer as incomplete and empty', async () => {
    await expect(transferZone('closed.test', options(dns.port))).resolves.toEqual({
      records: [],
      complete: false,
    });
  });

  it('survives a server that sends something that is not DNS', async () => {
    await expect(transferZone('open.test', options(garbagePort))).resolves.toEqual({
      records: [],
      complete: false,
    });
  });

  it('gives up when aborted', async () => {
    const silent = createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const controller = new AbortController();
    const transfer = transferZone('open.test', {
      ...options((silent.address() as { port: number }).port),
      timeoutMs: 30_000,
      signal: controller.signal,
    });
    controller.abort();

    await expect(transfer).resolves.toEqual({ records: [], complete: false });
    await new Promise((resolve) => silent.close(resolve));
  }, 10_000);
});
