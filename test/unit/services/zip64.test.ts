import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import * as yauzl from 'yauzl';
import { writeZip } from '../../../src/services/lists/zip-writer';

/** Past 65,535 entries the classic end record cannot count them: the archive needs ZIP64 records. */
const ENTRIES = 70_000;

describe('list ZIP files past the classic ZIP limits', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'zip64-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes more than 65,535 entries with ZIP64 records that unzip and yauzl read back', async () => {
    const target = join(dir, 'many.zip');
    function* entries() {
      for (let i = 0; i < ENTRIES; i++)
        yield {
          name: `tech-${i}.csv`,
          stream: () => Readable.from([Buffer.from(`url\r\nhttps://s${i}.com\r\n`)]),
        };
    }
    await writeZip(target, entries());

    const bytes = readFileSync(target);
    // The ZIP64 end of central directory record and its locator are there; the classic record
    // says 0xFFFF entries, "look at the ZIP64 record".
    expect(bytes.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true);
    expect(bytes.includes(Buffer.from([0x50, 0x4b, 0x06, 0x07]))).toBe(true);
    const classic = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    expect(bytes.readUInt16LE(classic + 10)).toBe(0xffff);

    // Info-ZIP's unzip lists every entry.
    const listing = execFileSync('unzip', ['-l', target], { maxBuffer: 64 * 1024 * 1024 }).toString();
    expect(listing.trim().split('\n').pop()).toMatch(new RegExp(`\\s${ENTRIES} files$`));

    // A reader library sees the same count and reads the last entry's content.
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(target, { lazyEntries: true }, (error, file) => (error ? reject(error) : resolve(file))),
    );
    expect(zip.entryCount).toBe(ENTRIES);
    const last = await new Promise<string>((resolve, reject) => {
      let seen = 0;
      zip.on('entry', (entry: yauzl.Entry) => {
        seen++;
        if (seen < ENTRIES) return zip.readEntry();
        zip.openReadStream(entry, async (error, stream) => {
          if (error) return reject(error);
          const parts: Buffer[] = [];
          for await (const part of stream) parts.push(part as Buffer);
          resolve(`${entry.fileName}:${Buffer.concat(parts).toString()}`);
        });
      });
      zip.on('error', reject);
      zip.readEntry();
    });
    zip.close();
    expect(last).toBe(`tech-${ENTRIES - 1}.csv:url\r\nhttps://s${ENTRIES - 1}.com\r\n`);
  }, 300_000);
});
