import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './project-root';

/**
 * The project-owned CPE table (data/cpe/cpe-map.json): a CPE 2.3 name for technologies whose
 * fingerprint has none, and the right one where upstream's is wrong. It is the one place CPEs are
 * named or corrected (the corrections pack leaves `cpe` as upstream has it), and every compiled set
 * takes it (see Fingerprints), whatever its base.
 */
export interface CpeMapEntry {
  /** CPE 2.3 formatted string, version ANY. */
  cpe: string;
  /** The NVD record (CVE) or NVD CPE dictionary search that uses the name. */
  source: string;
  /** The upstream value this entry corrects (absent: upstream has no CPE for it). */
  replaces?: string;
  note?: string;
}

export const CPE_MAP_FILE = join(projectRoot(), 'data', 'cpe', 'cpe-map.json');

/** The table's entries by technology name, read from `file`. */
export function readCpeMap(file: string = CPE_MAP_FILE): ReadonlyMap<string, CpeMapEntry> {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { technologies?: Record<string, CpeMapEntry> };
  return new Map(Object.entries(parsed.technologies ?? {}));
}

let table: ReadonlyMap<string, CpeMapEntry> | undefined;

/** The technology's CPE: the table's when it has one, else the fingerprint's. */
export function cpeOf(name: string, fingerprintCpe: string | undefined): string | undefined {
  table ??= readCpeMap();
  return table.get(name)?.cpe ?? fingerprintCpe;
}
