/*
 * The small part of the DNS wire format (RFC 1035 §4) a zone transfer needs: encode one query,
 * decode the records of a response. Node's resolver cannot do AXFR, and the test server's codec
 * (dns2) is a development dependency, so the service carries its own.
 */

export const DNS_TYPE = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  AAAA: 28,
  SRV: 33,
  AXFR: 252,
} as const;
const CLASS_IN = 1;
const MAX_POINTER_JUMPS = 64;

export interface DnsRecord {
  /** Owner name, lowercase, without trailing dot. */
  name: string;
  type: number;
  /** Domain names inside the record data (NS, CNAME, PTR, MX exchange, SRV target, SOA primary). */
  targets: string[];
}

export interface DnsMessage {
  id: number;
  rcode: number;
  answers: DnsRecord[];
}

export function encodeDnsQuery(id: number, name: string, type: number): Buffer {
  const labels = name.replace(/\.$/, '').split('.').filter(Boolean);
  const question = Buffer.concat([
    ...labels.map((label) => {
      const bytes = Buffer.from(label, 'ascii');
      if (bytes.length > 63) throw new RangeError(`DNS label too long: ${label}`);
      return Buffer.concat([Buffer.from([bytes.length]), bytes]);
    }),
    Buffer.from([0, type >> 8, type & 0xff, 0, CLASS_IN]),
  ]);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(1, 4); // QDCOUNT; flags stay 0: a standard, non-recursive query
  return Buffer.concat([header, question]);
}

/** @throws RangeError when the message is truncated or malformed. */
export function decodeDnsMessage(message: Buffer): DnsMessage {
  const reader = new WireReader(message);
  const id = reader.u16();
  const rcode = reader.u16() & 0x0f;
  const questions = reader.u16();
  const answerCount = reader.u16();
  reader.skip(4); // authority and additional sections are not needed
  for (let i = 0; i < questions; i++) {
    reader.name();
    reader.skip(4);
  }
  const answers: DnsRecord[] = [];
  for (let i = 0; i < answerCount; i++) {
    const name = reader.name();
    const type = reader.u16();
    reader.skip(6); // class, TTL
    const length = reader.u16();
    const end = reader.offset + length;
    if (end > message.length) throw new RangeError('DNS record data overruns the message');
    answers.push({ name, type, targets: readTargets(reader, type) });
    reader.offset = end;
  }
  return { id, rcode, answers };
}

function readTargets(reader: WireReader, type: number): string[] {
  switch (type) {
    case DNS_TYPE.NS:
    case DNS_TYPE.CNAME:
    case DNS_TYPE.PTR:
    case DNS_TYPE.SOA:
      return [reader.name()];
    case DNS_TYPE.MX:
      reader.skip(2);
      return [reader.name()];
    case DNS_TYPE.SRV:
      reader.skip(6);
      return [reader.name()];
    default:
      return [];
  }
}

class WireReader {
  offset = 0;

  constructor(private readonly buffer: Buffer) {}

  u16(): number {
    this.need(2);
    const value = this.buffer.readUInt16BE(this.offset);
    this.offset += 2;
    return value;
  }

  skip(bytes: number): void {
    this.need(bytes);
    this.offset += bytes;
  }

  /** Reads a possibly compressed name; the reader ends after the name's first pointer. */
  name(): string {
    const labels: string[] = [];
    let position = this.offset;
    let resumeAt: number | null = null;
    for (let jumps = 0; ;) {
      if (position >= this.buffer.length) throw new RangeError('DNS name overruns the message');
      const length = this.buffer[position];
      if (length === 0) {
        position += 1;
        break;
      }
      if ((length & 0xc0) === 0xc0) {
        if (position + 1 >= this.buffer.length || ++jumps > MAX_POINTER_JUMPS) {
          throw new RangeError('Bad DNS name compression pointer');
        }
        resumeAt ??= position + 2;
        position = ((length & 0x3f) << 8) | this.buffer[position + 1];
        continue;
      }
      if (length > 63 || position + 1 + length > this.buffer.length) throw new RangeError('Bad DNS label');
      labels.push(this.buffer.toString('latin1', position + 1, position + 1 + length));
      position += 1 + length;
    }
    this.offset = resumeAt ?? position;
    return labels.join('.').toLowerCase();
  }

  private need(bytes: number): void {
    if (this.offset + bytes > this.buffer.length) throw new RangeError('DNS message truncated');
  }
}
