import { createWriteStream, renameSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';

/** One file inside an archive: its name and the stream of its bytes (read when its turn comes). */
export interface ZipEntry {
  name: string;
  stream: () => Readable;
}

/**
 * Streams entries into a ZIP at `target` in constant memory: yazl writes ZIP64 records on its own
 * when an entry or the archive passes 4 GiB or the archive holds more than 65,535 entries. The
 * archive is written under `target.part` and renamed when complete, so no reader ever sees half a
 * file.
 */
export async function writeZip(target: string, entries: Iterable<ZipEntry>): Promise<void> {
  const partial = `${target}.part`;
  const zip = new ZipFile();
  for (const entry of entries) zip.addReadStream(entry.stream(), entry.name);
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(partial));
  renameSync(partial, target);
}
