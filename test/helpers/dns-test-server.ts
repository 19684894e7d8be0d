import type { RemoteInfo } from 'node:dgram';
import type { AddressInfo, Socket } from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;
type DnsPacket = InstanceType<typeof Packet>;
type DnsResource = DnsPacket['answers'][number];

export type DnsRecordType = 'A' | 'AAAA' | 'MX' | 'TXT' | 'NS' | 'CNAME' | 'SOA' | 'SRV';

/**
 * What the server does with every query for a name instead of answering it; 'timeout-once' leaves
 * the first query of each type unanswered and answers the next ones (a lost datagram).
 */
export type DnsFailure = 'SERVFAIL' | 'REFUSED' | 'timeout' | 'timeout-once';

export interface DnsQueryLogEntry {
  name: string;
  type: string;
  transport: 'udp' | 'tcp';
}

interface StoredRecord {
  type: DnsRecordType;
  ttl: number;
  /** The record's fields as dns2 encodes them (address, exchange/priority, data, ns, domain…). */
  fields: Partial<DnsResource>;
}

const TYPE_NAMES = Object.fromEntries(
  Object.entries(Packet.TYPE).map(([name, code]) => [code, name]),
) as Record<number, string>;
/** RFC 1035 response codes (dns2 has them at runtime, not in its types). */
const RCODE = { FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;
const MAX_CNAME_CHAIN = 8;
const ZONE_LINE = /^(\S+)(?:\s+([0-9]+))?(?:\s+IN)?\s+(A|AAAA|MX|TXT|NS|CNAME|SOA|SRV)\s+(.+)$/i;

/**
 * An authoritative DNS server for tests, on UDP and TCP of one loopback port (what a resolver
 * pointed at "127.0.0.1:PORT" uses: UDP first, TCP when an answer is truncated). Records are
 * added in zone-file presentation form:
 *
 *   dns.add('example.test', 'MX', '10 mx1.example.test');
 *   dns.zone(`
 *     @        300 IN SOA ns1 hostmaster 1 3600 600 86400 300
 *     @            IN NS  ns1
 *     www          IN A   127.0.0.1
 *     *.apps       IN A   127.0.0.2
 *     @            IN TXT "v=spf1 -all"
 *   `, 'example.test');
 *
 * Names are case-insensitive; unknown names get NXDOMAIN, names without the asked type NODATA
 * (with the zone's SOA when there is one); wildcards follow RFC 4592 (closest encloser); a CNAME
 * is followed within the server's data. `fail(name, …)` makes a name SERVFAIL, REFUSED or go
 * unanswered, and `queries` records every question asked.
 */
export class DnsTestServer {
  readonly queries: DnsQueryLogEntry[] = [];
  private readonly records = new Map<string, StoredRecord[]>();
  private readonly failures = new Map<string, DnsFailure>();
  /** "name type" of the questions a 'timeout-once' name has left unanswered. */
  private readonly unansweredOnce = new Set<string>();
  private readonly tcpClients = new Set<Socket>();

  private constructor(
    private readonly udp: InstanceType<typeof dns2.UDPServer>,
    private readonly tcp: InstanceType<typeof dns2.TCPServer>,
    readonly host: string,
    readonly port: number,
  ) {}

  static async start(options: { host?: string } = {}): Promise<DnsTestServer> {
    const host = options.host ?? '127.0.0.1';
    // The UDP port is ephemeral; TCP must get the same number, which another process may hold.
    for (let attempt = 0; ; attempt++) {
      let server: DnsTestServer | null = null;
      const udp = dns2.createUDPServer((request, send, client) =>
        server?.answer(request, send, client as RemoteInfo, 'udp'),
      );
      const tcp = dns2.createTCPServer((request, send, client) =>
        server?.answer(request, send, client as Socket, 'tcp'),
      );
      await udp.listen(0, host);
      const port = (udp.address() as AddressInfo).port;
      try {
        await new Promise<void>((resolve, reject) => {
          tcp.once('error', reject);
          tcp.listen(port, host, () => {
            tcp.removeListener('error', reject);
            resolve();
          });
        });
      } catch (error) {
        await new Promise<void>((resolve) => udp.close(() => resolve()));
        if (attempt < 5 && (error as NodeJS.ErrnoException).code === 'EADDRINUSE') continue;
        throw error;
      }
      server = new DnsTestServer(udp, tcp, host, port);
      tcp.on('connection', (socket: Socket) => server?.trackTcpClient(socket));
      return server;
    }
  }

  /** The value for DNS_SERVERS / createDnsResolver({ servers }). */
  get address(): string {
    return `${this.host}:${this.port}`;
  }

  /** Adds one record; `name` and the names in `rdata` are absolute (a trailing dot is optional). */
  add(name: string, type: DnsRecordType, rdata: string, ttl = 300): this {
    return this.store(normalizeName(name), type, rdata, ttl, null);
  }

  /**
   * Adds the records of a zone file fragment: one record per line, "name [ttl] [IN] TYPE rdata",
   * ';' comments, '@' for the origin, names without a trailing dot relative to the origin.
   */
  zone(text: string, origin = ''): this {
    const base = normalizeName(origin);
    for (const rawLine of text.split('\n')) {
      const line = stripComment(rawLine).trim();
      if (!line) continue;
      const match = ZONE_LINE.exec(line);
      if (!match) throw new Error(`zone line "${line}": expected "name [ttl] [IN] TYPE rdata"`);
      const [, name, ttl, type, rdata] = match;
      this.store(
        absoluteName(name, base),
        type.toUpperCase() as DnsRecordType,
        rdata,
        ttl ? Number(ttl) : 300,
        base,
      );
    }
    return this;
  }

  /** Every query for `name` (whatever the type) fails this way until `clearFailure`. */
  fail(name: string, failure: DnsFailure): this {
    this.failures.set(normalizeName(name), failure);
    return this;
  }

  clearFailure(name: string): this {
    this.failures.delete(normalizeName(name));
    for (const asked of this.unansweredOnce)
      if (asked.startsWith(`${normalizeName(name)} `)) this.unansweredOnce.delete(asked);
    return this;
  }

  /** Removes every record of `name`. */
  remove(name: string): this {
    this.records.delete(normalizeName(name));
    return this;
  }

  /** The queries asked for `name` (any type), e.g. to assert that nothing was asked. */
  queriesFor(name: string): DnsQueryLogEntry[] {
    const wanted = normalizeName(name);
    return this.queries.filter((query) => query.name === wanted);
  }

  async close(): Promise<void> {
    for (const socket of this.tcpClients) socket.destroy();
    await Promise.all([
      new Promise<void>((resolve) => this.udp.close(() => resolve())),
      new Promise<void>((resolve) => this.tcp.close(() => resolve())),
    ]);
  }

  private trackTcpClient(socket: Socket): void {
    this.tcpClients.add(socket);
    socket.once('close', () => this.tcpClients.delete(socket));
  }

  private store(name: string, type: DnsRecordType, rdata: string, ttl: number, origin: string | null): this {
    const fields = parseRdata(type, rdata, (target) =>
      origin === null ? normalizeName(target) : absoluteName(target, origin),
    );
    const list = this.records.get(name) ?? [];
    list.push({ type, ttl, fields });
    this.records.set(name, list);
    return this;
  }

  private answer(
    request: DnsPacket,
    send: (response: DnsPacket) => Promise<unknown>,
    client: RemoteInfo | Socket,
    transport: 'udp' | 'tcp',
  ): void {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    const [question] = request.questions;
    if (!question) {
      response.header.rcode = RCODE.FORMERR;
      void send(response).catch(() => undefined);
      return;
    }
    const name = normalizeName(question.name);
    this.queries.push({ name, type: TYPE_NAMES[question.type] ?? String(question.type), transport });
    const failure = this.failures.get(name);
    if (failure === 'timeout') return;
    if (failure === 'timeout-once') {
      const asked = `${name} ${question.type}`;
      if (!this.unansweredOnce.has(asked)) {
        this.unansweredOnce.add(asked);
        return;
      }
    }
    if (failure && failure !== 'timeout-once') {
      response.header.rcode = RCODE[failure];
    } else {
      this.resolveInto(response, name, question.type, MAX_CNAME_CHAIN);
    }
    // The client may be gone (it timed out): nothing to do about it here.
    void send(response).catch(() => client);
  }

  /** Fills answers (or rcode and the SOA authority) for `name`, following CNAMEs. */
  private resolveInto(response: DnsPacket, name: string, type: number, cnamesLeft: number): void {
    const owned = this.recordsAt(name);
    if (owned === null) {
      response.header.rcode = RCODE.NXDOMAIN;
      this.addNegativeSoa(response, name);
      return;
    }
    const cname = owned.find((record) => record.type === 'CNAME');
    if (cname && type !== Packet.TYPE.CNAME) {
      response.answers.push(toResource(name, cname));
      if (cnamesLeft > 0) this.resolveInto(response, cname.fields.domain as string, type, cnamesLeft - 1);
      return;
    }
    const matching = owned.filter((record) => Packet.TYPE[record.type] === type);
    if (matching.length === 0) this.addNegativeSoa(response, name);
    for (const record of matching) response.answers.push(toResource(name, record));
  }

  /**
   * The records of `name`: its own, or those of the wildcard at its closest encloser when the
   * name does not exist; [] for a name that exists without records (an empty non-terminal);
   * null when the name does not exist.
   */
  private recordsAt(name: string): StoredRecord[] | null {
    const own = this.records.get(name);
    if (own && own.length > 0) return own;
    if (this.exists(name)) return [];
    let encloser = name;
    while (encloser.includes('.')) {
      encloser = encloser.slice(encloser.indexOf('.') + 1);
      if (this.exists(encloser)) break;
    }
    return this.records.get(`*.${encloser}`) ?? null;
  }

  /** A name exists when it owns records or is an ancestor of a name that does. */
  private exists(name: string): boolean {
    for (const [owner, list] of this.records) {
      if (list.length > 0 && (owner === name || owner.endsWith(`.${name}`))) return true;
    }
    return false;
  }

  private addNegativeSoa(response: DnsPacket, name: string): void {
    for (let zone = name; zone; zone = zone.includes('.') ? zone.slice(zone.indexOf('.') + 1) : '') {
      const soa = this.records.get(zone)?.find((record) => record.type === 'SOA');
      if (soa) {
        response.authorities.push(toResource(zone, soa));
        return;
      }
    }
  }
}

function toResource(name: string, record: StoredRecord): DnsResource {
  return {
    name,
    type: Packet.TYPE[record.type],
    class: Packet.CLASS.IN,
    ttl: record.ttl,
    ...record.fields,
  } as DnsResource;
}

function parseRdata(
  type: DnsRecordType,
  rdata: string,
  target: (name: string) => string,
): Partial<DnsResource> {
  const parts = rdata.trim().split(/\s+/);
  const count = (expected: number) => {
    if (parts.length !== expected) throw new Error(`${type} record "${rdata}": expected ${expected} fields`);
  };
  switch (type) {
    case 'A':
    case 'AAAA':
      count(1);
      return { address: parts[0] };
    case 'MX':
      count(2);
      // "." is the null MX of RFC 7505: an empty exchange name.
      return { priority: Number(parts[0]), exchange: parts[1] === '.' ? '' : target(parts[1]) };
    case 'NS':
      count(1);
      return { ns: target(parts[0]) };
    case 'CNAME':
      count(1);
      return { domain: target(parts[0]) };
    case 'SRV':
      count(4);
      return {
        priority: Number(parts[0]),
        weight: Number(parts[1]),
        port: Number(parts[2]),
        target: target(parts[3]),
      };
    case 'SOA': {
      count(7);
      const [primary, admin, ...numbers] = parts;
      const [serial, refresh, retry, expiration, minimum] = numbers.map(Number);
      return { primary: target(primary), admin: target(admin), serial, refresh, retry, expiration, minimum };
    }
    case 'TXT':
      return { data: parseCharacterStrings(rdata.trim()) };
  }
}

/** `"a b" "c"` → ['a b', 'c'] (with \" and \\ escapes); unquoted text is one string. */
function parseCharacterStrings(text: string): string[] {
  if (!text.startsWith('"')) return [text];
  const strings: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"/g;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(text)) !== null) strings.push(match[1].replace(/\\(.)/g, '$1'));
  return strings;
}

function stripComment(line: string): string {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '"' && line[i - 1] !== '\\') quoted = !quoted;
    if (line[i] === ';' && !quoted) return line.slice(0, i);
  }
  return line;
}

function absoluteName(name: string, origin: string): string {
  if (name === '@') return origin;
  if (name.endsWith('.')) return normalizeName(name);
  return normalizeName(origin ? `${name}.${origin}` : name);
}

function normalizeName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}
