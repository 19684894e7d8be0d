import { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

export interface ReadBody {
  bytes: Buffer;
  /** The body was longer than the cap (after decompression): only the first maxBytes were kept. */
  truncated: boolean;
}

/** What the client advertises; anything else a server sends is refused rather than misread. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * Reads a response body, decompressing it, and stops reading once maxBytes of decoded content are
 * kept: the rest is never downloaded nor inflated, so neither a 20 MB page nor a gzip bomb costs more
 * than the cap in memory. The compressed stream is capped too (empty gzip members could otherwise
 * stream forever without producing output).
 */
export async function readBody(
  body: Readable,
  contentEncoding: string | undefined,
  maxBytes: number,
): Promise<ReadBody> {
  const codings = (contentEncoding ?? '')
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity');

  // Counts compressed bytes and ends the stream once past the cap (the decoded cap usually comes first).
  let wireBytes = 0;
  let wireCapped = false;
  const wireCounter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (wireCapped) return done();
      wireBytes += chunk.length;
      this.push(chunk);
      if (wireBytes > maxBytes) {
        wireCapped = true;
        this.push(null);
      }
      done();
    },
  });

  // Codings are listed in the order they were applied, so they are undone from the last one.
  const chain: Readable[] = [body, body.pipe(wireCounter)];
  for (const coding of codings.reverse()) chain.push(chain[chain.length - 1].pipe(createDecoder(coding)));
  // pipe() does not forward errors: each stage passes its failure on, unless the next one is done.
  chain.forEach((stage, index) => {
    const next = chain[index + 1];
    stage.on('error', (error) => {
      if (next && !next.destroyed) next.destroy(error);
    });
  });
  const stream = chain[chain.length - 1];

  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const room = maxBytes - kept;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        kept += room;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      kept += chunk.length;
    }
  } catch (error) {
    // A decompressor cut off at the compressed cap reports an unexpected end: that is truncation.
    if (!wireCapped) throw error;
  } finally {
    // From the reader back to the socket, so no stage is left to report the others' teardown.
    for (const stage of [...chain].reverse()) stage.destroy();
  }
  return { bytes: Buffer.concat(chunks, kept), truncated: truncated || wireCapped };
}

function createDecoder(coding: string) {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      throw new UnsupportedEncodingError(coding);
  }
}

export class UnsupportedEncodingError extends Error {
  constructor(readonly coding: string) {
    super(`Unsupported content encoding "${coding}"`);
  }
}
