import { Readable } from 'node:stream';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { readBody, UnsupportedEncodingError } from '../../../src/fetch/body-reader';

const page = Buffer.from(`<html><body>${'<p>contenu répété</p>'.repeat(1000)}</body></html>`);

/** A body arriving in several chunks, as from a socket. */
function streamOf(bytes: Buffer, chunkSize = 4096): Readable {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += chunkSize)
    chunks.push(bytes.subarray(offset, offset + chunkSize));
  return Readable.from(chunks);
}

describe('readBody', () => {
  it('reads an uncompressed body whole', async () => {
    await expect(readBody(streamOf(page), undefined, 1_000_000)).resolves.toEqual({
      bytes: page,
      truncated: false,
    });
  });

  it.each([
    ['gzip', gzipSync(page)],
    ['x-gzip', gzipSync(page)],
    ['deflate', deflateSync(page)],
    ['br', brotliCompressSync(page)],
    ['identity', page],
  ])('decodes %s', async (coding, body) => {
    const read = await readBody(streamOf(body), coding, 1_000_000);
    expect(read.truncated).toBe(false);
    expect(read.bytes.equals(page)).toBe(true);
  });

  it('undoes stacked codings in reverse order', async () => {
    const read = await readBody(streamOf(brotliCompressSync(gzipSync(page))), 'gzip, br', 1_000_000);
    expect(read.bytes.equals(page)).toBe(true);
  });

  it('keeps exactly the cap of a longer body and reports truncation', async () => {
    const read = await readBody(streamOf(page), undefined, 1000);
    expect(read).toEqual({ bytes: page.subarray(0, 1000), truncated: true });
  });

  it('does not report truncation for a body exactly at the cap', async () => {
    const read = await readBody(streamOf(page), undefined, page.length);
    expect(read.truncated).toBe(false);
  });

  it('stops inflating a gzip bomb at the cap', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024), { level: 9 });
    let pulled = 0;
    const source = streamOf(bomb, 1024).on('data', (chunk: Buffer) => (pulled += chunk.length));
    const read = await readBody(source, 'gzip', 64 * 1024);
    expect(read.bytes.length).toBe(64 * 1024);
    expect(read.truncated).toBe(true);
    expect(pulled).toBeLessThan(bomb.length);
  });

  it('rejects a corrupt compressed body', async () => {
    await expect(readBody(streamOf(Buffer.from('definitely not gzip')), 'gzip', 1000)).rejects.toThrow();
  });

  it('refuses a coding it did not ask for', async () => {
    await expect(readBody(streamOf(page), 'zstd', 1000)).rejects.toBeInstanceOf(UnsupportedEncodingError);
  });
});
