import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { getHeapStatistics } from 'node:v8';
import { SingleBar } from 'cli-progress';
import { ValidationError } from '../errors';
import type { Services } from '../services/services';
import {
  IMPORT_FORMATS,
  type ImportFormat,
  type ImportProgress,
  type ImportSummary,
} from '../services/site-index/site-import.service';

export interface SitesImportArgs {
  file: string;
  format: string;
  limit?: number;
  crawl: boolean;
}

/**
 * `npm run admin -- sites:import --file FILE [--format tranco|majestic|plain] [--limit N] [--crawl]`:
 * a progress bar (bytes read, with the counts) on a terminal, a plain line every 100,000 lines
 * otherwise (logs, CI), and the summary as the command's JSON result.
 */
export async function sitesImport(services: Services, args: SitesImportArgs): Promise<ImportSummary> {
  if (!(IMPORT_FORMATS as readonly string[]).includes(args.format))
    throw new ValidationError('format', `--format must be one of ${IMPORT_FORMATS.join(', ')}`);
  const size = (await stat(args.file).catch(() => null))?.size;
  if (size === undefined) throw new ValidationError('file', `--file ${args.file} cannot be read`);
  const input = createReadStream(args.file);
  const tty = process.stderr.isTTY === true;
  const bar = tty
    ? new SingleBar({
        format:
          'importing [{bar}] {percentage}% | read {read} | imported {imported} | invalid {invalid} | queued {queued}',
        stream: process.stderr,
      })
    : null;
  bar?.start(size, 0, { read: 0, imported: 0, invalid: 0, queued: 0 });
  let nextLine = 100_000;
  const onProgress = (progress: ImportProgress) => {
    if (bar) bar.update(input.bytesRead, { ...progress });
    else if (progress.read >= nextLine) {
      nextLine += 100_000;
      process.stderr.write(
        `read ${progress.read}, imported ${progress.imported}, invalid ${progress.invalid}, queued ${progress.queued}\n`,
      );
    }
  };
  try {
    return await services.siteImport.importRanks(input, {
      format: args.format as ImportFormat,
      ...(args.limit !== undefined ? { limit: args.limit } : {}),
      crawl: args.crawl,
      onProgress,
    });
  } finally {
    bar?.stop();
    const heapLimit = Math.round(getHeapStatistics().heap_size_limit / 1_048_576);
    process.stderr.write(
      `peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB, heap limit ${heapLimit} MB\n`,
    );
  }
}
