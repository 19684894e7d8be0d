import type { DetectedTechnology } from '../detection';
import type { UrlOutcome } from '../services/analysis.service';
import { siteKeyOf } from '../services/site-key';
import { UrlAnalysis, UrlAnalysisState } from './analysis.type';
import { DetectedTechnologyType } from './technology.type';
import { unixSeconds } from './unix-time';

export function toDetectedTechnology(
  t: DetectedTechnology,
  confirmedAt: Date,
  siteHostname: string,
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
    implied: t.implied,
    confirmedAt: unixSeconds(confirmedAt),
    evidence: t.evidence.map((e) => ({
      kind: e.kind,
      key: e.key ?? null,
      pattern: e.pattern,
      matched: e.matched,
    })),
  };
}

export function toUrlAnalysis(outcome: UrlOutcome): UrlAnalysis {
  const empty = {
    technologies: [],
    errors: [],
    title: null,
    description: null,
    language: null,
    email: null,
    phone: null,
    linkedin: null,
    twitter: null,
    facebook: null,
    render: null,
    skipped: [],
  };
  if (outcome.state === 'accepted') return { ...empty, url: outcome.url, state: UrlAnalysisState.ACCEPTED };
  if (outcome.state === 'failed')
    return { ...empty, url: outcome.url, state: UrlAnalysisState.FAILED, errors: outcome.errors };
  const a = outcome.attributes;
  return {
    ...empty,
    url: outcome.url,
    state: UrlAnalysisState.ANALYSED,
    technologies: outcome.technologies.map((t) =>
      toDetectedTechnology(t, outcome.analysedAt, siteKeyOf(outcome.siteUrl).hostname),
    ),
    title: a.title ?? null,
    description: a.description ?? null,
    language: a.language ?? null,
    email: a.email ?? null,
    phone: a.phone ?? null,
    linkedin: a.linkedin ?? null,
    twitter: a.twitter ?? null,
    facebook: a.facebook ?? null,
    render: outcome.render ?? null,
    skipped: (outcome.skipped ?? []).map((s) => ({ slug: s.slug, name: s.name, reason: s.reason })),
  };
}
