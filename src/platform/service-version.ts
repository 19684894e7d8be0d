import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The service's name and version from its package.json, found by walking up from this file (it
 * runs from src/ under the tests and from dist/src/ in production).
 */
function readPackage(): { name: string; version: string } {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const parsed = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (parsed.name && parsed.version) return { name: parsed.name, version: parsed.version };
    }
    if (dirname(dir) === dir) return { name: 'technology-intelligence-service', version: '0.0.0' };
  }
}

export const SERVICE_PACKAGE = readPackage();

/** The User-Agent of the service's own requests (callbacks): its name and version. */
export const SERVICE_USER_AGENT = `${SERVICE_PACKAGE.name}/${SERVICE_PACKAGE.version}`;
