import { versionedCpes, type DetectedTechnology } from '../detection';
import type { UrlOutcome } from '../services/analysis/analysis.service';
import { siteKeyOf } from '../services/site-index/site-key';
import { UrlAnalysis, UrlAnalysisState } from './analysis.type';
import { DetectedTechnologyType } from './technology.type';
import { unixSeconds } from './unix-time';

export function toDetectedTechnology(
  t: DetectedTechnology,
  confirmedAt: Date,
  siteHostname: string,
  fingerprintsVersion: string,
): DetectedTechnologyType {
  return {
    siteHostname,
    slug: t.slug,
    name: t.name,
    version: t.version,
    versions: t.versions,
    categories: t.categories.map((c) => ({ id: c.id, slug: c.slug, name: c.name })),
    confidence: t.confidence,
    icon: t.icon,
    website: t.website,
    cpe: t.cpe ?? null,
    versionedCpes: versionedCpes(t.cpe, t.versions),
    implied: t.implied,
    confirmedAt: unixSeconds(confirmedAt),
    evidence: t.evidence.map((e) => ({
      kind: e.kind,
      key: e.key ?? null,
      pattern: e.pattern,
      matched: e.matched,
    })),
    fingerprintsVersion,
  };
}

export function toUrlAnalysis(outcome: UrlOutcome): UrlAnalysis {
  if (outcome.state === 'accepted')
    return {
      url: outcome.url,
      state: UrlAnalysisState.ACCEPTED,
      technologies: [],
      errors: [],
      render: null,
      skipped: [],
    };
  if (outcome.state === 'failed')
    return {
      url: outcome.url,
      state: UrlAnalysisState.FAILED,
      technologies: [],
      errors: outcome.errors,
      render: null,
      skipped: [],
    };
  return {
    ...outcome.fields,
    url: outcome.url,
    state: UrlAnalysisState.ANALYSED,
    technologies: outcome.technologies.map((t) =>
      toDetectedTechnology(
        t,
        outcome.analysedAt,
        siteKeyOf(outcome.siteUrl).hostname,
        outcome.fingerprintsVersion,
      ),
    ),
    errors: [],
    render: outcome.render ?? null,
    skipped: (outcome.skipped ?? []).map((s) => ({ slug: s.slug, name: s.name, reason: s.reason })),
  };
}
