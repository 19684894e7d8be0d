import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The project's root: the nearest folder above this file with a package.json (src/ or dist/src/). */
export function projectRoot(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return join(__dirname, '..', '..');
  }
}
