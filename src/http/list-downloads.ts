import { createReadStream, existsSync, statSync } from 'node:fs';
import type { Request, Response } from 'express';
import { ForbiddenError, NotFoundError } from '../errors';
import { sendError } from '../rest-facade/error-response';
import type { Services } from '../services/services';
import { LIST_FILES } from '../services/lists/lead-list-files';

/**
 * GET /v2/lists/{id}/files/{sample.zip|full.zip}?expires=…&signature=…: a list's ZIP file, served
 * by the service itself. The signed link is the authorisation (no API key): a wrong signature, a
 * changed id, file or expiry, or an expired link is a 403; full.zip only once the list is Complete,
 * and a 503 with Retry-After while the list.files job (right after Ready) is still writing it; a
 * job that died, or a file gone from the disk, is written again by a restarted job.
 */
export const FULL_FILE_RETRY_SECONDS = 5;

export function createListDownloadHandler(services: Services) {
  return async function download(req: Request, res: Response): Promise<void> {
    const requestId = res.locals.requestId as string;
    try {
      const id = String(req.params.id);
      const file = String(req.params.file);
      const { expires, signature } = req.query as Record<string, unknown>;
      if (
        typeof expires !== 'string' ||
        typeof signature !== 'string' ||
        !services.lists.files.verify(id, file, expires, signature)
      )
        throw new ForbiddenError(
          'This download link is invalid or has expired: fetch the list again for a new one',
        );
      if (!(LIST_FILES as readonly string[]).includes(file)) throw new NotFoundError(`No file ${file}`);
      const list = await services.lists.downloadable(id, file);
      const path = services.lists.files.pathOf(id, file as (typeof LIST_FILES)[number]);
      if (!list) throw new NotFoundError(`No file ${file} for list ${id}`);
      if (!existsSync(path)) {
        if (file !== 'full.zip') throw new NotFoundError(`No file ${file} for list ${id}`);
        // Complete, but the list.files job that follows Ready is still writing the file (or died:
        // then it starts again).
        await services.lists.ensureFullFile(list);
        res.status(503);
        res.setHeader('Retry-After', String(FULL_FILE_RETRY_SECONDS));
        res.setHeader('Cache-Control', 'no-store');
        res.json({
          code: 'FILE_NOT_READY',
          message: `The full file of list ${id} is still being written: retry in ${FULL_FILE_RETRY_SECONDS} s with the same link`,
          retryAfter: FULL_FILE_RETRY_SECONDS,
          requestId,
        });
        return;
      }
      res.status(200);
      res.setHeader('Content-Type', 'application/zip');
      res.setHeader('Content-Length', String(statSync(path).size));
      res.setHeader('Content-Disposition', `attachment; filename="${id}-${file}"`);
      res.setHeader('Cache-Control', 'private, no-store');
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      const stream = createReadStream(path);
      stream.on('error', () => res.destroy());
      stream.pipe(res);
    } catch (error) {
      sendError(res, error, requestId);
    }
  };
}
