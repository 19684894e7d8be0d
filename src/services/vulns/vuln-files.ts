import { createReadStream, type ReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { parser } from 'stream-json';
import { pick } from 'stream-json/filters/Pick';
import { streamArray } from 'stream-json/streamers/StreamArray';
import yauzl from 'yauzl';
import { recordOfNvdItem, recordOfOsv, VulnFormatError, type VulnRecord } from './vuln-records';

/** What a file holds: an NVD CVE API 2.0 document, or OSV records (one, an array, a folder, a zip). */
export type VulnFileKind = 'nvd' | 'osv';

/** How far a read got: bytes of the file (compressed bytes for .gz) out of its size. */
export type ReadProgress = (bytesRead: number, totalBytes: number) => void;

/** One OSV file at most this large (records are a few KB; a whole ecosystem comes as a zip or folder). */
const OSV_FILE_MAX_BYTES = 64 * 1024 * 1024;
/** Decompressed bytes read to tell the formats apart. */
const HEAD_BYTES = 64 * 1024;

/** A vulnerability source file opened for reading, as often as needed (the import reads it twice). */
export interface VulnSource {
  kind: VulnFileKind;
  totalBytes: number;
  /** Every record in file order (null: a record kept out, such as a rejected CVE). */
  records(onProgress?: ReadProgress): AsyncIterable<VulnRecord | null>;
}

const GZIP_MAGIC = [0x1f, 0x8b];
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

async function firstBytes(path: string, n: number): Promise<Buffer> {
  const handle = await import('node:fs/promises').then((fs) => fs.open(path, 'r'));
  try {
    const buffer = Buffer.alloc(n);
    const { bytesRead } = await handle.read(buffer, 0, n, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

const startsWith = (buffer: Buffer, magic: number[]) => magic.every((b, i) => buffer[i] === b);

/** A readable of the file's text (decompressed when gzip), the raw stream for progress. */
function textStream(path: string, gzip: boolean): { raw: ReadStream; text: Readable } {
  const raw = createReadStream(path);
  if (!gzip) return { raw, text: raw };
  const gunzip = createGunzip();
  raw.on('error', (error) => gunzip.destroy(error));
  return { raw, text: raw.pipe(gunzip) };
}

/** The first HEAD_BYTES of the (decompressed) text. */
async function headOf(path: string, gzip: boolean): Promise<string> {
  const { raw, text } = textStream(path, gzip);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of text) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= HEAD_BYTES) break;
    }
  } catch (error) {
    throw gzipError(path, error);
  } finally {
    raw.destroy();
  }
  return Buffer.concat(chunks).subarray(0, HEAD_BYTES).toString('utf8');
}

function gzipError(path: string, error: unknown): Error {
  const code = (error as { code?: string }).code;
  if (code === 'Z_BUF_ERROR' || code === 'Z_DATA_ERROR' || /unexpected end of file/i.test(String(error)))
    return new VulnFormatError(
      `${path}: the gzip stream is truncated or corrupt (${(error as Error).message})`,
    );
  return error as Error;
}

/** Opens a file or folder and tells what it holds; a file that is neither format is refused here. */
export async function openVulnSource(path: string): Promise<VulnSource> {
  const info = await stat(path).catch(() => null);
  if (!info) throw new VulnFormatError(`${path} cannot be read`);
  if (info.isDirectory()) return osvFolder(path);
  const magic = await firstBytes(path, 4);
  if (startsWith(magic, ZIP_MAGIC)) return osvZip(path, info.size);
  const gzip = startsWith(magic, GZIP_MAGIC);
  const head = await headOf(path, gzip);
  if (/"format"\s*:\s*"NVD_CVE"/.test(head) || /^\s*\{\s*"(resultsPerPage|vulnerabilities)"/.test(head))
    return nvdFile(path, gzip, info.size);
  if (/"CVE_Items"\s*:|"CVE_data_format"/.test(head))
    throw new VulnFormatError(
      `${path} is an NVD 1.1 feed (CVE_Items), retired by NVD: download the CVE API 2.0 feed (nvdcve-2.0-*.json.gz)`,
    );
  if (/^\s*[[{]/.test(head) && !gzip) {
    if (info.size > OSV_FILE_MAX_BYTES)
      throw new VulnFormatError(`${path} is not an NVD CVE 2.0 feed and too large for one OSV file`);
    return osvFile(path, info.size);
  }
  throw new VulnFormatError(
    `${path} is neither an NVD CVE API 2.0 document (format NVD_CVE, .json or .json.gz) nor OSV JSON (a record, a folder or a zip of them)`,
  );
}

function nvdFile(path: string, gzip: boolean, totalBytes: number): VulnSource {
  return {
    kind: 'nvd',
    totalBytes,
    async *records(onProgress) {
      const { raw, text } = textStream(path, gzip);
      let failure: Error | null = null;
      const items = pipeline(text, parser(), pick({ filter: 'vulnerabilities' }), streamArray(), (error) => {
        if (error) failure = jsonError(path, gzipError(path, error));
      }) as Readable;
      let index = 0;
      try {
        for await (const { value } of items as AsyncIterable<{ key: number; value: unknown }>) {
          yield recordOfNvdItem(value, index++);
          onProgress?.(raw.bytesRead, totalBytes);
        }
      } catch (error) {
        throw failure ?? jsonError(path, gzipError(path, error));
      } finally {
        raw.destroy();
      }
      if (failure) throw failure;
      onProgress?.(totalBytes, totalBytes);
    },
  };
}

function jsonError(path: string, error: Error): Error {
  if (error instanceof VulnFormatError) return error;
  if (/Parser|JSON|token/i.test(error.message))
    return new VulnFormatError(`${path}: not valid JSON (${error.message})`);
  return error;
}

/** An OSV file: one record, or an array of them. */
function osvRecordsOfText(text: string, where: string): VulnRecord[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new VulnFormatError(`${where}: not valid JSON (${(error as Error).message})`);
  }
  const list = Array.isArray(value) ? value : [value];
  return list.map((v, i) => recordOfOsv(v, Array.isArray(value) ? `${where}[${i}]` : where));
}

function osvFile(path: string, totalBytes: number): VulnSource {
  return {
    kind: 'osv',
    totalBytes,
    async *records(onProgress) {
      yield* osvRecordsOfText(await readFile(path, 'utf8'), path);
      onProgress?.(totalBytes, totalBytes);
    },
  };
}

async function jsonFilesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await jsonFilesUnder(path)));
    else if (entry.isFile() && entry.name.endsWith('.json')) out.push(path);
  }
  return out;
}

async function osvFolder(dir: string): Promise<VulnSource> {
  const files = await jsonFilesUnder(dir);
  if (files.length === 0) throw new VulnFormatError(`${dir} holds no .json file`);
  return {
    kind: 'osv',
    totalBytes: files.length,
    async *records(onProgress) {
      for (const [i, file] of files.entries()) {
        yield* osvRecordsOfText(await readFile(file, 'utf8'), file);
        onProgress?.(i + 1, files.length);
      }
    },
  };
}

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (error, zip) =>
      error ? reject(new VulnFormatError(`${path}: not a readable zip (${error.message})`)) : resolve(zip),
    ),
  );
}

function entryText(zip: yauzl.ZipFile, entry: yauzl.Entry, where: string): Promise<string> {
  return new Promise((resolve, reject) => {
    if (entry.uncompressedSize > OSV_FILE_MAX_BYTES)
      return reject(new VulnFormatError(`${where} is too large for an OSV record`));
    zip.openReadStream(entry, (error, stream) => {
      if (error) return reject(new VulnFormatError(`${where}: ${error.message}`));
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', (e) => reject(new VulnFormatError(`${where}: ${e.message}`)));
      stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
  });
}

/** A zip of OSV records (as osv.dev's per-ecosystem all.zip): each .json entry, in zip order. */
async function osvZip(path: string, totalBytes: number): Promise<VulnSource> {
  return {
    kind: 'osv',
    totalBytes,
    async *records(onProgress) {
      const zip = await openZip(path);
      const next = (): Promise<yauzl.Entry | null> =>
        new Promise((resolve, reject) => {
          const onEntry = (entry: yauzl.Entry) => {
            zip.off('end', onEnd);
            zip.off('error', onError);
            resolve(entry);
          };
          const onEnd = () => {
            zip.off('entry', onEntry);
            zip.off('error', onError);
            resolve(null);
          };
          const onError = (error: Error) => {
            zip.off('entry', onEntry);
            zip.off('end', onEnd);
            reject(new VulnFormatError(`${path}: ${error.message}`));
          };
          zip.once('entry', onEntry);
          zip.once('end', onEnd);
          zip.once('error', onError);
          zip.readEntry();
        });
      try {
        for (let entry = await next(); entry; entry = await next()) {
          if (!entry.fileName.endsWith('.json')) continue;
          const where = `${path}:${entry.fileName}`;
          yield* osvRecordsOfText(await entryText(zip, entry, where), where);
          onProgress?.(entry.compressedSize, totalBytes);
        }
      } finally {
        zip.close();
      }
    },
  };
}
