/**
 * A minimal MaxMind DB (MMDB 2.0) writer for tests: an IPv4 search tree with 24-bit records, a data
 * section of maps, strings and unsigned integers, and the metadata readers need. Enough to give the
 * service a GeoIP database that knows loopback addresses; real databases come from their packages.
 * Format: https://maxmind.github.io/MaxMind-DB/
 */
export type MmdbValue = string | number | MmdbValue[] | { [key: string]: MmdbValue };

export interface MmdbNetwork {
  /** "127.0.0.0/8" */
  cidr: string;
  data: { [key: string]: MmdbValue };
}

const METADATA_MARKER = Buffer.from([0xab, 0xcd, 0xef, ...Buffer.from('MaxMind.com')]);

function control(type: number, size: number): Buffer {
  // Types above 7 are "extended": type bits 0, then a byte with type - 7.
  const head = (type <= 7 ? type : 0) << 5;
  const extended = type > 7 ? [type - 7] : [];
  if (size < 29) return Buffer.from([head | size, ...extended]);
  if (size < 29 + 256) return Buffer.from([head | 29, ...extended, size - 29]);
  const rest = size - 285;
  return Buffer.from([head | 30, ...extended, rest >> 8, rest & 0xff]);
}

function encode(value: MmdbValue): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([control(2, bytes.length), bytes]);
  }
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
      throw new Error(`unsupported number ${value}`);
    const bytes: number[] = [];
    for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    return Buffer.concat([control(6, bytes.length), Buffer.from(bytes)]); // uint32
  }
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  return Buffer.concat([
    control(7, entries.length),
    ...entries.flatMap(([key, inner]) => [encode(key), encode(inner)]),
  ]);
}

function ipv4Bits(cidr: string): number[] {
  const [address, prefix] = cidr.split('/');
  const octets = address.split('.').map(Number);
  const length = Number(prefix ?? 32);
  const bits: number[] = [];
  for (let i = 0; i < length; i++) bits.push((octets[i >> 3] >> (7 - (i & 7))) & 1);
  return bits;
}

/** Builds an MMDB file holding `networks` (IPv4 only); every other address has no record. */
export function writeMmdb(networks: MmdbNetwork[], databaseType = 'Test-GeoIP'): Buffer {
  type Child = { node: number } | { data: number } | null;
  const nodes: [Child, Child][] = [[null, null]];
  const data: Buffer[] = [];
  let dataLength = 0;
  for (const network of networks) {
    const encoded = encode(network.data);
    const offset = dataLength;
    data.push(encoded);
    dataLength += encoded.length;
    const bits = ipv4Bits(network.cidr);
    let node = 0;
    bits.forEach((bit, index) => {
      if (index === bits.length - 1) {
        nodes[node][bit] = { data: offset };
        return;
      }
      const child = nodes[node][bit];
      if (child && 'node' in child) node = child.node;
      else {
        nodes.push([null, null]);
        nodes[node][bit] = { node: nodes.length - 1 };
        node = nodes.length - 1;
      }
    });
  }
  const count = nodes.length;
  const tree = Buffer.alloc(count * 6);
  const record = (child: Child): number =>
    child === null ? count : 'node' in child ? child.node : count + 16 + child.data;
  nodes.forEach(([left, right], index) => {
    tree.writeUIntBE(record(left), index * 6, 3);
    tree.writeUIntBE(record(right), index * 6 + 3, 3);
  });
  const metadata = encode({
    node_count: count,
    record_size: 24,
    ip_version: 4,
    database_type: databaseType,
    languages: ['en'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: Math.floor(Date.now() / 1000),
    description: { en: 'Test database written by test/helpers/mmdb-writer.ts' },
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...data, METADATA_MARKER, metadata]);
}
