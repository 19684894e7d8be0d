import { DNS_TYPE, decodeDnsMessage, encodeDnsQuery } from '../../../src/subdomains/dns-wire-codec';

const header = (id: number, flags: number, qd: number, an: number) => {
  const buffer = Buffer.alloc(12);
  buffer.writeUInt16BE(id, 0);
  buffer.writeUInt16BE(flags, 2);
  buffer.writeUInt16BE(qd, 4);
  buffer.writeUInt16BE(an, 6);
  return buffer;
};
const name = (...labels: string[]) =>
  Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])),
    Buffer.from([0]),
  ]);
const u16 = (...values: number[]) => Buffer.from(values.flatMap((v) => [v >> 8, v & 0xff]));
const record = (owner: Buffer, type: number, rdata: Buffer) =>
  Buffer.concat([owner, u16(type, 1, 0, 300, rdata.length), rdata]);

describe('DNS wire codec', () => {
  it('encodes a non-recursive AXFR query', () => {
    const query = encodeDnsQuery(0x1234, 'Example.com.', DNS_TYPE.AXFR);

    expect(query).toEqual(
      Buffer.concat([header(0x1234, 0, 1, 0), name('Example', 'com'), u16(DNS_TYPE.AXFR, 1)]),
    );
  });

  it('decodes answers with compressed names and the names inside record data', () => {
    const question = name('example', 'com'); // at offset 12
    const pointer = (offset: number) => u16(0xc000 | offset);
    const message = Buffer.concat([
      header(7, 0x8400, 1, 4),
      question,
      u16(DNS_TYPE.AXFR, 1),
      record(pointer(12), DNS_TYPE.A, Buffer.from([192, 0, 2, 1])),
      record(
        Buffer.concat([Buffer.from([3]), Buffer.from('WWW'), pointer(12)]),
        DNS_TYPE.CNAME,
        name('edge', 'example', 'com'),
      ),
      record(
        pointer(12),
        DNS_TYPE.MX,
        Buffer.concat([u16(10), Buffer.from([4]), Buffer.from('mail'), pointer(12)]),
      ),
      record(pointer(12), DNS_TYPE.SRV, Buffer.concat([u16(0, 5, 5060), name('sip', 'example', 'com')])),
    ]);

    expect(decodeDnsMessage(message)).toEqual({
      id: 7,
      rcode: 0,
      answers: [
        { name: 'example.com', type: DNS_TYPE.A, targets: [] },
        { name: 'www.example.com', type: DNS_TYPE.CNAME, targets: ['edge.example.com'] },
        { name: 'example.com', type: DNS_TYPE.MX, targets: ['mail.example.com'] },
        { name: 'example.com', type: DNS_TYPE.SRV, targets: ['sip.example.com'] },
      ],
    });
  });

  it('reports the response code', () => {
    expect(decodeDnsMessage(header(1, 0x8005, 0, 0)).rcode).toBe(5);
  });

  it.each([
    ['a truncated header', Buffer.from([0, 1, 0])],
    [
      'a record that overruns the message',
      Buffer.concat([header(1, 0x8000, 0, 1), name('a'), u16(1, 1, 0, 0, 50)]),
    ],
    ['a compression loop', Buffer.concat([header(1, 0x8000, 0, 1), u16(0xc000 | 12)])],
    ['a name running off the end', Buffer.concat([header(1, 0x8000, 0, 1), Buffer.from([5, 97])])],
  ])('throws on %s', (_, message) => {
    expect(() => decodeDnsMessage(message)).toThrow(RangeError);
  });
});
