import { Readable } from 'node:stream';
import { linesOf } from '../../../src/services/site-index/site-import.service';

const collect = async (chunks: (string | Buffer)[], maxLine?: number) => {
  const lines: string[] = [];
  for await (const line of linesOf(Readable.from(chunks), maxLine)) lines.push(line);
  return lines;
};

describe('linesOf: the lines of an import file, read as they are taken', () => {
  it('splits on \\n and \\r\\n across chunks, with or without a final newline', async () => {
    expect(await collect(['1,a.com\r\n2,b.', 'com\n3,c.com'])).toEqual(['1,a.com', '2,b.com', '3,c.com']);
    expect(await collect(['a\n', '\n', 'b\n'])).toEqual(['a', '', 'b']);
  });

  it('decodes a UTF-8 character split between two chunks', async () => {
    const bytes = Buffer.from('1,bücher.de\n');
    expect(await collect([bytes.subarray(0, 4), bytes.subarray(4)])).toEqual(['1,bücher.de']);
  });

  it('hands out an overlong line once, cut, and drops the rest of it', async () => {
    const long = 'x'.repeat(50);
    expect(await collect(['a\n' + long.slice(0, 30), long.slice(30), long, '\nb\n'], 20)).toEqual([
      'a',
      long.slice(0, 30),
      'b',
    ]);
  });

  it('does not read ahead of its consumer', async () => {
    let pulled = 0;
    const input = new Readable({
      highWaterMark: 1,
      objectMode: true,
      read() {
        pulled++;
        this.push(pulled > 100 ? null : `${pulled},site-${pulled}.com\n`);
      },
    });
    const lines = linesOf(input);
    await lines.next();
    // One line taken: the stream was asked for a few chunks at most, not the whole file.
    expect(pulled).toBeLessThan(10);
    await lines.return(undefined);
  });
});
