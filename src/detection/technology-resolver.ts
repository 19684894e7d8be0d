import {
  MAX_EVIDENCE,
  type DetectedCategory,
  type DetectedTechnology,
  type Evidence,
} from './detection-result';
import type { Fingerprints, Technology } from './fingerprints';

/** Matches gathered for one technology while analysing a page. */
export interface Accumulated {
  confidence: number;
  versions: string[];
  /** Versions a library states about itself (read from a script's or stylesheet's own text). */
  stated?: string[];
  evidence: Evidence[];
}

/**
 * The versions worth ranking: when a library states its version in its own text (a banner in the
 * script or stylesheet), a version read elsewhere (a file name, a query) that contradicts it is
 * dropped: a file can be renamed or replaced (Debian ships jQuery 3.6.1 as jquery-1.10.2.min.js,
 * phpMyAdmin appends its own version to every script URL), the banner travels with the code. A
 * version consistent with a stated one (a prefix of it, or it of them) stays.
 */
export function credibleVersions(acc: Pick<Accumulated, 'versions' | 'stated'>): string[] {
  const stated = acc.stated ?? [];
  if (stated.length === 0) return acc.versions;
  const consistent = (v: string): boolean => stated.some((s) => s.startsWith(v) || v.startsWith(s));
  return acc.versions.filter((v) => stated.includes(v) || consistent(v));
}

const MAX_VERSION_LENGTH = 15;

/**
 * The reference engine's choice: the longest candidate of at most 15 characters, ignoring numbers of
 * 10000 and more (timestamps, build numbers). Returns the candidates best first.
 */
export function rankVersions(candidates: readonly string[]): string[] {
  // Most technologies have no version: no set or copies for those.
  if (candidates.length === 0) return [];
  const usable = [...new Set(candidates.map((v) => v.trim()))].filter(
    (v) => v !== '' && v.length <= MAX_VERSION_LENGTH && (parseInt(v, 10) || 0) < 10000,
  );
  return usable.sort((a, b) => b.length - a.length);
}

export function categoryPriority(categories: readonly DetectedCategory[]): number {
  return categories.reduce((max, c) => Math.max(max, c.priority), 0);
}

/** Sort order of results: category priority as the reference engine computes it, then confidence, name. */
export function compareDetected(a: DetectedTechnology, b: DetectedTechnology): number {
  return (
    categoryPriority(a.categories) - categoryPriority(b.categories) ||
    b.confidence - a.confidence ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
}

interface Present {
  tech: Technology;
  confidence: number;
  versions: string[];
  evidence: Evidence[];
  implied: boolean;
}

/**
 * Turns raw matches into the result: `requires`/`requiresCategory` gates resolved to a fixed point
 * (a gated technology counts once a technology it requires, found or implied, is present), then
 * `excludes` of the found technologies, then `implies` (tags stripped, confidence the lower of the
 * implying technology's and the tag's).
 */
export function resolveTechnologies(
  fingerprints: Fingerprints,
  found: Map<number, Accumulated>,
): DetectedTechnology[] {
  const techs = fingerprints.technologies;
  const gated = (t: Technology): boolean => t.requires.length > 0 || t.requiresCategory.length > 0;

  const accepted = new Set<number>();
  const pending: number[] = [];
  for (const index of found.keys()) {
    if (gated(techs[index])) pending.push(index);
    else accepted.add(index);
  }
  while (pending.length) {
    const closure = impliedClosure(techs, accepted);
    const categories = new Set<number>();
    for (const index of closure) for (const c of techs[index].categories) categories.add(c.id);
    const before = pending.length;
    for (let k = pending.length - 1; k >= 0; k--) {
      const t = techs[pending[k]];
      if (t.requires.some((r) => closure.has(r)) || t.requiresCategory.some((c) => categories.has(c))) {
        accepted.add(pending[k]);
        pending.splice(k, 1);
      }
    }
    if (pending.length === before) break;
  }

  for (const index of [...accepted]) {
    if (!accepted.has(index)) continue;
    for (const excluded of techs[index].excludes) if (excluded !== index) accepted.delete(excluded);
  }

  const present = new Map<number, Present>();
  for (const index of accepted) {
    const acc = found.get(index) as Accumulated;
    present.set(index, {
      tech: techs[index],
      confidence: Math.min(100, acc.confidence),
      versions: credibleVersions(acc),
      evidence: acc.evidence,
      implied: false,
    });
  }
  const queue = [...present.keys()];
  for (let head = 0; head < queue.length; head++) {
    const source = present.get(queue[head]) as Present;
    for (const implication of source.tech.implies) {
      const confidence = Math.min(source.confidence, implication.confidence);
      const existing = present.get(implication.tech);
      if (existing) {
        if (existing.implied && confidence > existing.confidence) existing.confidence = confidence;
        continue;
      }
      present.set(implication.tech, {
        tech: techs[implication.tech],
        confidence,
        versions: implication.version ? [implication.version] : [],
        evidence: [{ kind: 'implies', pattern: source.tech.name, matched: '' }],
        implied: true,
      });
      queue.push(implication.tech);
    }
  }

  const out: DetectedTechnology[] = [];
  for (const entry of present.values()) out.push(toDetected(entry));
  return out.sort(compareDetected);
}

function impliedClosure(techs: readonly Technology[], seeds: Set<number>): Set<number> {
  const closure = new Set(seeds);
  const queue = [...seeds];
  for (let head = 0; head < queue.length; head++) {
    for (const implication of techs[queue[head]].implies) {
      if (!closure.has(implication.tech)) {
        closure.add(implication.tech);
        queue.push(implication.tech);
      }
    }
  }
  return closure;
}

function toDetected(entry: Present): DetectedTechnology {
  const versions = rankVersions(entry.versions);
  const t = entry.tech;
  const categories = t.categories.map(({ id, slug, name, priority }) => ({ id, slug, name, priority }));
  const version = versions[0] ?? '';
  const evidence = entry.evidence.slice(0, MAX_EVIDENCE);
  // Two literals rather than a spread of an optional cpe: the same keys in the same order, without
  // a throw-away object per technology.
  const { name, slug, icon, website, cpe } = t;
  const { confidence, implied } = entry;
  return cpe
    ? { name, slug, categories, versions, version, confidence, icon, website, cpe, implied, evidence }
    : { name, slug, categories, versions, version, confidence, icon, website, implied, evidence };
}
