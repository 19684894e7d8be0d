import type { Socket as DgramSocket } from 'node:dgram';
import { Socket, type Server as NetServer } from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;

/** Records of one owner name. Names are absolute ("www.example.test"); "*.example.test" is a wildcard. */
export interface ZoneNode {
  A?: string[];
  AAAA?: string[];
  CNAME?: string;
  NS?: string[];
  MX?: Array<{ priority: number; exchange: string }>;
  /** Each entry is one TXT record; an array is one record split into several character-strings. */
  TXT?: Array<string | string[]>;
  SRV?: Array<{ priority: number; weight: number; port: number; target: string }>;
}

export interface TestZone {
  origin: string;
  records: Record<string, ZoneNode>;
  /** Answer AXFR (over TCP) for this zone; otherwise transfers are REFUSED. */
  allowTransfer?: boolean;
}

export interface DnsZoneServerOptions {
  /** Names whose questions get no answer at all (to exercise timeouts and deadlines). */
  silentNames?: string[];
  /** Records per AXFR message, small so a transfer spans several TCP messages. */
  transferRecordsPerMessage?: number;
}

export interface DnsZoneServer {
  /** UDP/TCP server as "127.0.0.1:port", for createDnsResolver / dnsServers. */
  server: string;
  /** TCP port (the same number as the UDP port) for zone transfers. */
  port: number;
  /** Every question received, lowercase name and numeric type. */
  questions: Array<{ name: string; type: number }>;
  close(): Promise<void>;
}

type Resource = dns2.Packet.Resource;

const TTL = 60;
const RCODE_NXDOMAIN = 3;
const RCODE_REFUSED = 5;

/**
 * An authoritative DNS server for tests on 127.0.0.1, answering over UDP and TCP from in-memory
 * zones: A, AAAA, CNAME (followed within the zones), NS, MX, TXT, SRV, SOA, wildcards, NXDOMAIN
 * with the SOA in the authority section, REFUSED outside its zones, and AXFR for zones that allow
 * it. UDP and TCP share one port number, like a real name server.
 */
export async function startDnsZoneServer(
  zones: TestZone[],
  options: DnsZoneServerOptions = {},
): Promise<DnsZoneServer> {
  const normalised = zones.map((zone) => ({
    ...zone,
    origin: canonical(zone.origin),
    nodes: new Map(Object.entries(zone.records).map(([name, node]) => [canonical(name), node])),
  }));
  const silent = new Set((options.silentNames ?? []).map(canonical));
  const perMessage = options.transferRecordsPerMessage ?? 3;
  const questions: DnsZoneServer['questions'] = [];

  const zoneOf = (name: string) =>
    normalised
      .filter((zone) => name === zone.origin || name.endsWith(`.${zone.origin}`))
      .sort((a, b) => b.origin.length - a.origin.length)[0];

  const soa = (zone: (typeof normalised)[number]): Resource =>
    resource(zone.origin, Packet.TYPE.SOA, {
      primary: `ns1.${zone.origin}`,
      admin: `hostmaster.${zone.origin}`,
      serial: 1,
      refresh: 3600,
      retry: 600,
      expiration: 86400,
      minimum: TTL,
    });

  const nodeFor = (name: string, zone: (typeof normalised)[number]): ZoneNode | undefined => {
    const exact = zone.nodes.get(name);
    if (exact) return exact;
    for (let parent = name; parent !== zone.origin && parent.includes('.');) {
      parent = parent.slice(parent.indexOf('.') + 1);
      const wildcard = zone.nodes.get(`*.${parent}`);
      if (wildcard) return wildcard;
    }
    return undefined;
  };

  const handle: dns2.DnsHandler = (request, send, client) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    const name = canonical(question.name);
    questions.push({ name, type: question.type });
    if (silent.has(name)) return;
    const zone = zoneOf(name);
    if (!zone) {
      response.header.rcode = RCODE_REFUSED;
      void send(response);
      return;
    }
    if (question.type === Packet.TYPE.AXFR) {
      if (client instanceof Socket && zone.allowTransfer && name === zone.origin) {
        const records = [...zone.nodes].flatMap(([owner, node]) => resources(owner, node));
        const messages = [[soa(zone)]];
        for (let i = 0; i < records.length; i += perMessage) messages.push(records.slice(i, i + perMessage));
        messages.push([soa(zone)]);
        for (const answers of messages) {
          const message = Packet.createResponseFromRequest(request);
          message.header.aa = 1;
          message.answers = answers;
          void send(message);
        }
      } else {
        response.header.rcode = RCODE_REFUSED;
        void send(response);
      }
      return;
    }
    response.header.aa = 1;
    let owner = name;
    let node = nodeFor(owner, zone);
    if (!node) {
      response.header.rcode = RCODE_NXDOMAIN;
      response.authorities.push(soa(zone));
      void send(response);
      return;
    }
    // Follow CNAME chains inside the served zones, as an authoritative server with the
    // target's zone would, so A/AAAA questions for aliases are answered in one response.
    for (let hops = 0; node.CNAME && question.type !== Packet.TYPE.CNAME && hops < 8; hops++) {
      response.answers.push(resource(owner, Packet.TYPE.CNAME, { domain: node.CNAME }));
      owner = canonical(node.CNAME);
      const targetZone = zoneOf(owner);
      const target = targetZone && nodeFor(owner, targetZone);
      if (!target) break;
      node = target;
    }
    response.answers.push(...resources(owner, node).filter((record) => record.type === question.type));
    if (response.answers.length === 0) response.authorities.push(soa(zone));
    void send(response);
  };

  for (let attempt = 1; ; attempt++) {
    const server = dns2.createServer({ udp: true, tcp: true, handle });
    // dns2 re-emits its TCP and UDP servers' errors on itself; without a listener an EADDRINUSE
    // while binding would be thrown as an uncaught exception instead of reaching the retry below.
    server.on('error', () => undefined);
    try {
      const port = await listenOnSharedPort(server);
      return {
        server: `127.0.0.1:${port}`,
        port,
        questions,
        close: async () => {
          await server.close();
        },
      };
    } catch (error) {
      (server as unknown as { servers: { udp: DgramSocket } }).servers.udp.close();
      if (attempt === 5) throw error;
    }
  }
}

function canonical(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

function resource(name: string, type: number, data: Partial<Resource>): Resource {
  return { name, type, class: Packet.CLASS.IN, ttl: TTL, ...data } as Resource;
}

function resources(owner: string, node: ZoneNode): Resource[] {
  return [
    ...(node.A ?? []).map((address) => resource(owner, Packet.TYPE.A, { address })),
    ...(node.AAAA ?? []).map((address) => resource(owner, Packet.TYPE.AAAA, { address })),
    ...(node.CNAME ? [resource(owner, Packet.TYPE.CNAME, { domain: node.CNAME })] : []),
    ...(node.NS ?? []).map((ns) => resource(owner, Packet.TYPE.NS, { ns })),
    ...(node.MX ?? []).map((mx) => resource(owner, Packet.TYPE.MX, mx)),
    ...(node.TXT ?? []).map((data) => resource(owner, Packet.TYPE.TXT, { data })),
    ...(node.SRV ?? []).map((srv) => resource(owner, Packet.TYPE.SRV, srv)),
  ];
}

/** Binds UDP on an ephemeral port, then TCP on the same number (fails if that TCP port is taken). */
async function listenOnSharedPort(server: dns2.DnsServer): Promise<number> {
  const { tcp, udp } = (server as unknown as { servers: { tcp: NetServer; udp: DgramSocket } }).servers;
  const port = await new Promise<number>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(0, '127.0.0.1', () => {
      udp.removeListener('error', reject);
      resolve(udp.address().port);
    });
  });
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(port, '127.0.0.1', () => {
      tcp.removeListener('error', reject);
      resolve();
    });
  });
  return port;
}
