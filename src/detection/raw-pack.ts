import bundledGroups from './category-groups.json';
import { Fingerprints, type RawCategory, type RawGroup, type RawTechnology } from './fingerprints';
import type { PackFile, PackSource } from './pack-files';

/** A pack's data parsed: what the engine compiles. */
export interface RawPack {
  technologies: Record<string, RawTechnology>;
  categories: Record<string, RawCategory>;
  groups: Record<string, RawGroup>;
}

function parseFile<T>(file: PackFile): T {
  try {
    return JSON.parse(file.text) as T;
  } catch (error) {
    throw new Error(`fingerprints: cannot read ${file.name}: ${(error as Error).message}`);
  }
}

/**
 * Parses a pack's files (validate them first: this only throws on JSON syntax). A pack without
 * groups.json takes the bundled copy of webappanalyzer's groups.
 */
export function parsePack(source: PackSource): RawPack {
  const technologies = Object.create(null) as Record<string, RawTechnology>;
  for (const file of source.technologies)
    Object.assign(technologies, parseFile<Record<string, RawTechnology>>(file));
  return {
    technologies,
    categories: parseFile<Record<string, RawCategory>>(source.categories),
    groups: source.groups
      ? parseFile<Record<string, RawGroup>>(source.groups)
      : (bundledGroups as Record<string, RawGroup>),
  };
}

/**
 * Lays packs over a base, in order: a technology an overlay names replaces the base's entry of that
 * name whole (an overlay entry is a complete upstream-format entry, so it can be sent upstream as it
 * is), and categories and groups are merged by id. Nothing is removed.
 */
export function overlayPacks(base: RawPack, ...overlays: readonly RawPack[]): RawPack {
  const technologies = Object.assign(Object.create(null) as Record<string, RawTechnology>, base.technologies);
  const categories = { ...base.categories };
  const groups = { ...base.groups };
  for (const overlay of overlays) {
    Object.assign(technologies, overlay.technologies);
    Object.assign(categories, overlay.categories);
    Object.assign(groups, overlay.groups);
  }
  return { technologies, categories, groups };
}

/** Compiles a parsed pack (synchronous; see Fingerprints for what compiling does). */
export function compilePack(pack: RawPack): Fingerprints {
  return new Fingerprints(pack.technologies, pack.categories, pack.groups);
}
