import {
  MAX_EVIDENCE,
  type DetectedTechnology,
  type DetectionResult,
  type Evidence,
} from './detection-result';
import { compareDetected, rankVersions } from './technology-resolver';

/**
 * Combines the results of several pages of one site (a crawl): per technology the highest confidence,
 * the union of versions (best first), found directly if any page found it directly, and the union of
 * evidence without duplicates, at most MAX_EVIDENCE items. A technology skipped on one page but found
 * on another is not reported as skipped. The fingerprint version is the pages' one; pages analysed
 * with different versions (a page whose stored result was reused) give the distinct versions in page
 * order, joined by ',', so a mixed result never passes for one version's.
 */
export function mergeResults(results: readonly DetectionResult[]): DetectionResult {
  const merged = new Map<string, DetectedTechnology & { allVersions: string[]; evidenceKeys: Set<string> }>();
  for (const result of results) {
    for (const t of result.technologies) {
      let m = merged.get(t.slug);
      if (!m) {
        m = { ...t, evidence: [], allVersions: [], evidenceKeys: new Set() };
        merged.set(t.slug, m);
      }
      m.confidence = Math.max(m.confidence, t.confidence);
      m.implied = m.implied && t.implied;
      m.allVersions.push(...t.versions);
      for (const e of t.evidence) addEvidence(m.evidence, m.evidenceKeys, e);
    }
  }
  const technologies: DetectedTechnology[] = [];
  for (const { allVersions, evidenceKeys: _keys, ...t } of merged.values()) {
    const versions = rankVersions(allVersions);
    technologies.push({ ...t, versions, version: versions[0] ?? '' });
  }
  technologies.sort(compareDetected);

  const skipped = new Map<string, DetectionResult['skipped'][number]>();
  for (const result of results) {
    for (const s of result.skipped) if (!merged.has(s.slug) && !skipped.has(s.slug)) skipped.set(s.slug, s);
  }
  const versions = [...new Set(results.map((r) => r.fingerprintsVersion ?? ''))];
  return { technologies, skipped: [...skipped.values()], fingerprintsVersion: versions.join(',') };
}

function addEvidence(list: Evidence[], keys: Set<string>, evidence: Evidence): void {
  if (list.length >= MAX_EVIDENCE) return;
  const key = `${evidence.kind}\u0000${evidence.key ?? ''}\u0000${evidence.pattern}`;
  if (keys.has(key)) return;
  keys.add(key);
  list.push(evidence);
}
