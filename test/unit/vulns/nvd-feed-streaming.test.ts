/**
 * Flat memory of the NVD feed reader (issue 33, Tests): a generated NVD CVE API 2.0 feed of 32 MB
 * of JSON, gzip-compressed as the yearly feeds are, read whole by a process whose heap is capped at
 * 48 MB, in which the same feed parsed at once does not fit: the reader can only finish by
 * streaming. The 300 MB run through the whole import, with its memory along the way, is
 * `npm run bench:vulns-import` (figures in docs/performance.md).
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

import { writeGeneratedNvdFeed } from '../../../bench/vulns/generated-nvd-feed';

const FEED_MB = 32;
const HEAP_CAP = `--max-old-space-size=48`;
const CHILD = join(__dirname, 'read-nvd-feed.child.ts');
const PARSE_AT_ONCE =
  "const { gunzipSync } = require('node:zlib'); " +
  "JSON.parse(gunzipSync(require('node:fs').readFileSync(process.argv[1])).toString('utf8'));";

describe('reading an NVD feed that does not fit in the heap', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nvd-feed-'));
  const feed = join(dir, 'nvdcve-2.0-generated.json.gz');
  let records = 0;

  beforeAll(async () => {
    const json = join(dir, 'nvdcve-2.0-generated.json');
    records = await writeGeneratedNvdFeed(json, FEED_MB);
    await pipeline(createReadStream(json), createGzip(), createWriteStream(feed));
    rmSync(json);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('does not fit parsed at once: the heap cap is below what the whole feed needs', () => {
    const whole = spawnSync(process.execPath, [HEAP_CAP, '-e', PARSE_AT_ONCE, feed], { encoding: 'utf8' });
    expect(whole.status === 0 && whole.signal === null).toBe(false);
  });

  it('is read record by record under the same cap, every record', () => {
    const child = spawnSync(process.execPath, [HEAP_CAP, '-r', '@swc-node/register', CHILD, feed], {
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toMatchObject({ kind: 'nvd', records });
  });
});
