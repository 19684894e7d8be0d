import type { AffectedSpec, OsvEvent } from './affected-ranges';
import { cvss3BaseScore, severityOfScore } from './cvss';

/** A vulnerability as stored: what can match a technology, and what the answers show. */
export interface VulnRecord {
  id: string;
  source: 'nvd' | 'osv';
  aliases: string[];
  summary: string;
  /** NONE, LOW, MEDIUM, HIGH or CRITICAL; null when the record gives no CVSS. */
  severity: string | null;
  /** CVSS base score, null when none is given (or only a v4 vector without a score). */
  score: number | null;
  /** The CVSS vector the score and severity come from (v4.0 before v3.1 before v3.0). */
  vector: string | null;
  published: Date | null;
  modified: Date;
  references: string[];
  /** Per product key (`cpe:vendor:product` or `osv:ecosystem:name`): what is affected. */
  affected: { product: string; spec: AffectedSpec }[];
}

/** The file does not hold what it should (a wrong schema): the message names the record and the field. */
export class VulnFormatError extends Error {}

const REFERENCES_MAX = 20;
const SUMMARY_MAX = 1000;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A timestamp of either feed (NVD's carry no zone: they are UTC). */
function dateOf(value: unknown, where: string, required: boolean): Date | null {
  const text = str(value);
  if (text === undefined) {
    if (required) throw new VulnFormatError(`${where} has no valid date`);
    return null;
  }
  const date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
  if (Number.isNaN(date.getTime())) throw new VulnFormatError(`${where}: ${text.slice(0, 40)} is not a date`);
  return date;
}

/** cpe:2.3:part:vendor:product:version:… split on unescaped colons. */
export function cpeParts(cpe: string): string[] {
  return cpe.split(/(?<!\\):/);
}

/** The product key of a CPE 2.3 name (`cpe:vendor:product`), null when it is not one. */
export function cpeProductKey(cpe: string): string | null {
  const parts = cpeParts(cpe);
  if (parts.length < 6 || parts[0] !== 'cpe' || parts[1] !== '2.3') return null;
  return `cpe:${parts[3].toLowerCase()}:${parts[4].toLowerCase()}`;
}

export const osvProductKey = (ecosystem: string, name: string) => `osv:${ecosystem}:${name}`;

/**
 * One item of an NVD CVE API 2.0 document's `vulnerabilities` array ({cve: {...}}); null for a
 * rejected CVE. Only `vulnerable` CPE match criteria are kept.
 */
export function recordOfNvdItem(item: unknown, index: number): VulnRecord | null {
  const where = `vulnerabilities[${index}]`;
  const cve = isObject(item) ? item.cve : undefined;
  if (!isObject(cve) || !/^CVE-\d{4}-\d+$/.test(str(cve.id) ?? ''))
    throw new VulnFormatError(`${where} is not an NVD CVE 2.0 item (no cve.id of the form CVE-YYYY-N)`);
  const id = cve.id as string;
  if (cve.vulnStatus === 'Rejected') return null;
  const affected: VulnRecord['affected'] = [];
  for (const configuration of arr(cve.configurations))
    for (const node of arr(isObject(configuration) ? configuration.nodes : undefined))
      for (const match of arr(isObject(node) ? node.cpeMatch : undefined)) {
        if (!isObject(match) || match.vulnerable !== true) continue;
        const criteria = str(match.criteria) ?? '';
        const product = cpeProductKey(criteria);
        if (!product)
          throw new VulnFormatError(`${id}: ${criteria.slice(0, 80) || 'a cpeMatch'} is not a CPE 2.3 name`);
        const spec: AffectedSpec = { kind: 'cpe', version: cpeParts(criteria)[5] };
        for (const [key, field] of [
          ['startIncluding', 'versionStartIncluding'],
          ['startExcluding', 'versionStartExcluding'],
          ['endIncluding', 'versionEndIncluding'],
          ['endExcluding', 'versionEndExcluding'],
        ] as const) {
          const bound = str(match[field]);
          if (bound !== undefined) spec[key] = bound;
        }
        affected.push({ product, spec });
      }
  const metrics = isObject(cve.metrics) ? cve.metrics : {};
  const cvss = pickCvss(metrics);
  const description = arr(cve.descriptions).find((d) => isObject(d) && d.lang === 'en');
  return {
    id,
    source: 'nvd',
    aliases: [],
    summary: (isObject(description) ? (str(description.value) ?? '') : '').slice(0, SUMMARY_MAX),
    ...cvss,
    published: dateOf(cve.published, `${id} published`, false),
    modified: dateOf(cve.lastModified, `${id} lastModified`, true)!,
    references: referencesOf(cve.references),
    affected,
  };
}

/** NVD metrics: the newest CVSS version given, the Primary (NVD's own) entry first. */
function pickCvss(metrics: Json): Pick<VulnRecord, 'severity' | 'score' | 'vector'> {
  for (const key of ['cvssMetricV40', 'cvssMetricV31', 'cvssMetricV30']) {
    const entries = arr(metrics[key]).filter(isObject);
    const entry = entries.find((e) => e.type === 'Primary') ?? entries[0];
    const data = entry && isObject(entry.cvssData) ? entry.cvssData : undefined;
    if (!data) continue;
    const score = typeof data.baseScore === 'number' ? data.baseScore : null;
    return {
      score,
      vector: str(data.vectorString) ?? null,
      severity: str(data.baseSeverity)?.toUpperCase() ?? (score === null ? null : severityOfScore(score)),
    };
  }
  return { severity: null, score: null, vector: null };
}

function referencesOf(value: unknown): string[] {
  return arr(value)
    .map((r) => (isObject(r) ? str(r.url) : undefined))
    .filter((u): u is string => u !== undefined)
    .slice(0, REFERENCES_MAX);
}

/** Ecosystems whose versions are semver (OSV ECOSYSTEM ranges compare by it there). */
const SEMVER_ECOSYSTEMS = new Set(['npm', 'crates.io', 'Hex', 'Pub', 'SwiftURL']);

/** One OSV record (schema 1.x). `where` names it in errors (the file, the zip entry). */
export function recordOfOsv(value: unknown, where: string): VulnRecord {
  if (
    !isObject(value) ||
    typeof value.id !== 'string' ||
    value.id === '' ||
    typeof value.modified !== 'string'
  )
    throw new VulnFormatError(`${where} is not an OSV record (it needs a string id and modified)`);
  const id = value.id;
  const affected: VulnRecord['affected'] = [];
  for (const [i, entry] of arr(value.affected).entries()) {
    if (!isObject(entry)) throw new VulnFormatError(`${id}: affected[${i}] is not an object`);
    const pkg = isObject(entry.package) ? entry.package : undefined;
    const ecosystem = str(pkg?.ecosystem);
    const name = str(pkg?.name);
    if (!ecosystem || !name) continue;
    const base = ecosystem.split(':')[0];
    const ranges: OsvEvent[][] = [];
    let semverRanges = SEMVER_ECOSYSTEMS.has(base);
    for (const [j, range] of arr(entry.ranges).entries()) {
      if (!isObject(range)) throw new VulnFormatError(`${id}: affected[${i}].ranges[${j}] is not an object`);
      if (range.type !== 'SEMVER' && range.type !== 'ECOSYSTEM') continue;
      if (range.type === 'SEMVER') semverRanges = true;
      const events: OsvEvent[] = [];
      for (const event of arr(range.events)) {
        const [key, version] = isObject(event) ? (Object.entries(event)[0] ?? []) : [];
        if (
          !['introduced', 'fixed', 'last_affected', 'limit'].includes(key as string) ||
          typeof version !== 'string'
        )
          throw new VulnFormatError(
            `${id}: affected[${i}].ranges[${j}] has an event that is not introduced/fixed/last_affected/limit`,
          );
        events.push({ [key as string]: version } as OsvEvent);
      }
      ranges.push(events);
    }
    const versions = arr(entry.versions).filter((v): v is string => typeof v === 'string');
    if (ranges.length === 0 && versions.length === 0) continue;
    affected.push({
      product: osvProductKey(base, name),
      spec: { kind: 'osv', scheme: semverRanges ? 'semver' : 'dotted', ranges, versions },
    });
  }
  const severity = pickOsvSeverity(value);
  return {
    id,
    source: 'osv',
    aliases: arr(value.aliases).filter((a): a is string => typeof a === 'string' && a !== id),
    summary: (str(value.summary) ?? str(value.details) ?? '').slice(0, SUMMARY_MAX),
    ...severity,
    published: dateOf(value.published, `${id} published`, false),
    modified: dateOf(value.modified, `${id} modified`, true)!,
    references: referencesOf(value.references),
    affected,
  };
}

/** OSV severity: a CVSS vector (v4 before v3); the score computed for v3, GHSA's label as a fallback. */
function pickOsvSeverity(value: Json): Pick<VulnRecord, 'severity' | 'score' | 'vector'> {
  const entries = arr(value.severity).filter(isObject);
  const v4 = entries.find((e) => e.type === 'CVSS_V4');
  const v3 = entries.find((e) => e.type === 'CVSS_V3');
  const label = isObject(value.database_specific) ? str(value.database_specific.severity) : undefined;
  const fallback = label ? (label.toUpperCase() === 'MODERATE' ? 'MEDIUM' : label.toUpperCase()) : null;
  const v3Score = v3 ? cvss3BaseScore(str(v3.score) ?? '') : null;
  if (v4 && str(v4.score)) return { vector: str(v4.score)!, score: null, severity: fallback };
  if (v3 && str(v3.score))
    return {
      vector: str(v3.score)!,
      score: v3Score,
      severity: v3Score === null ? fallback : severityOfScore(v3Score),
    };
  return { vector: null, score: null, severity: fallback };
}
