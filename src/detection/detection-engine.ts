import type { DetectionInput } from './detection-input';
import {
  EVIDENCE_MATCH_LIMIT,
  MAX_EVIDENCE,
  type DetectionResult,
  type EvidenceKind,
  type SkippedTechnology,
} from './detection-result';
import { DomMatcher } from './dom-matcher';
import type { Fingerprints, KeyedEntry, KeyedPatterns, TextKind } from './fingerprints';
import { parseHtml } from './html-document';
import { resolveVersion, type Pattern } from './pattern';
import { resolveTechnologies, type Accumulated } from './technology-resolver';

/**
 * Input bounds. The html bound is the reference drivers' (first and last 3 MB); the others keep a
 * hostile or broken fetch from costing more than a large real page.
 */
export const LIMITS = {
  htmlHead: 3_000_000,
  htmlTail: 3_000_000,
  url: 4_096,
  scriptUrls: 500,
  scriptUrl: 2_048,
  scriptBodies: 50,
  scriptBody: 1_000_000,
  cssTotal: 1_000_000,
  robots: 100_000,
  headerValue: 8_192,
  headerValues: 100,
  cookies: 200,
  dnsRecords: 200,
} as const;

function bounded(text: string, limit: number): string {
  return text.length > limit ? text.slice(0, limit) : text;
}

/** The html the patterns see: whole up to 6 MB, else its first and last 3 MB. */
export function boundHtml(html: string): string {
  if (html.length <= LIMITS.htmlHead + LIMITS.htmlTail) return html;
  return `${html.slice(0, LIMITS.htmlHead)}\n${html.slice(html.length - LIMITS.htmlTail)}`;
}

function absoluteUrl(src: string, base: string): string | null {
  try {
    return new URL(src, base).href;
  } catch {
    return null;
  }
}

/** Parses Set-Cookie header values into name → values. */
function cookiesFromSetCookie(values: readonly string[]): Record<string, string[]> {
  const cookies: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const header of values.slice(0, LIMITS.cookies)) {
    const pair = header.split(';', 1)[0];
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const name = pair.slice(0, eq).trim();
    (cookies[name] ??= []).push(pair.slice(eq + 1).trim());
  }
  return cookies;
}

/** Cookies the fetcher reported plus those of Set-Cookie headers, values merged per name. */
function mergeCookies(
  given: Record<string, string[]> | undefined,
  fromHeaders: Record<string, string[]>,
): Record<string, string[]> {
  if (!given) return fromHeaders;
  const merged = Object.create(null) as Record<string, string[]>;
  for (const source of [given, fromHeaders]) {
    for (const [name, values] of Object.entries(source)) {
      const list = (merged[name] ??= []);
      for (const value of Array.isArray(values) ? values : [String(values)])
        if (!list.includes(value)) list.push(value);
    }
  }
  return merged;
}

/** Each script URL as written and, when different, resolved against the page (patterns expect either). */
function scriptUrls(sources: readonly string[], baseHref: string | null, url: string): string[][] {
  const base = (baseHref && absoluteUrl(baseHref, url)) || url;
  const out: string[][] = [];
  const seen = new Set<string>();
  for (const src of sources.slice(0, LIMITS.scriptUrls)) {
    const written = bounded(String(src).trim(), LIMITS.scriptUrl);
    if (!written || seen.has(written)) continue;
    seen.add(written);
    const resolved = absoluteUrl(written, base);
    out.push(resolved && resolved !== written ? [written, bounded(resolved, LIMITS.scriptUrl)] : [written]);
  }
  return out;
}

/**
 * Matches one fetched page against the compiled fingerprints. Synchronous, no I/O, no shared state
 * between calls: one engine serves any number of analyses.
 */
export class DetectionEngine {
  constructor(readonly fingerprints: Fingerprints) {}

  analyze(input: DetectionInput): DetectionResult {
    const fp = this.fingerprints;
    const found = new Map<number, Accumulated>();
    const record = (
      tech: number,
      kind: EvidenceKind,
      pattern: Pattern,
      match: RegExpExecArray | null,
      key?: string,
    ): void => {
      let acc = found.get(tech);
      if (!acc) {
        acc = { confidence: 0, versions: [], evidence: [] };
        found.set(tech, acc);
      }
      acc.confidence += pattern.confidence;
      if (pattern.version) {
        const version = match ? resolveVersion(pattern.version, match) : pattern.version.replace(/\\\d/g, '');
        if (version) acc.versions.push(version);
      }
      if (acc.evidence.length < MAX_EVIDENCE) {
        acc.evidence.push({
          kind,
          ...(key !== undefined ? { key } : {}),
          pattern: pattern.source,
          matched: match ? match[0].slice(0, EVIDENCE_MATCH_LIMIT) : '',
        });
      }
    };

    const html = boundHtml(typeof input.html === 'string' ? input.html : '');
    const doc = parseHtml(html);
    const url = bounded(String(input.url ?? ''), LIMITS.url);

    /**
     * Runs a kind's candidate patterns on each item; every matching item counts. An item may have
     * several forms (a script URL as written and resolved): the first form that matches counts.
     */
    const runTexts = (kind: TextKind, items: readonly (readonly string[])[], scanned?: Uint8Array): void => {
      const set = fp.textPatterns[kind];
      const usable = items
        .map((forms) => forms.filter((t) => t.length > 0))
        .filter((forms) => forms.length > 0);
      if (usable.length === 0) return;
      const candidates = scanned ? set.candidatesIn([scanned]) : set.candidates(usable.flat());
      for (const index of candidates) {
        const { tech, pattern } = set.entries[index];
        for (const forms of usable) {
          for (const text of forms) {
            const match = pattern.regex.exec(text);
            if (match) {
              record(tech, kind, pattern, match);
              break;
            }
          }
        }
      }
    };

    // One pass over the markup for the html patterns, the DOM prefilter and the browser hints.
    const markupFound = fp.markupLiterals.scan([html]);
    runTexts('url', [[url]]);
    runTexts('html', [[html]], markupFound);
    runTexts('text', [[doc.text]]);
    const css = bounded([...doc.styles, ...(input.css ?? [])].join('\n'), LIMITS.cssTotal);
    runTexts('css', [[css]]);
    if (input.robots) runTexts('robots', [[bounded(input.robots, LIMITS.robots)]]);
    if (input.certIssuer) runTexts('certIssuer', [[bounded(input.certIssuer, LIMITS.headerValue)]]);

    runTexts('scriptSrc', scriptUrls(input.scriptSrc ?? doc.scriptSrc, doc.baseHref, url));
    const scripts = (input.scripts ?? [])
      .slice(0, LIMITS.scriptBodies)
      .map((s) => bounded(s, LIMITS.scriptBody));
    const scriptsFound = scripts.length ? fp.markupLiterals.scan(scripts) : null;
    runTexts(
      'scripts',
      scripts.map((s) => [s]),
      scriptsFound ?? undefined,
    );

    const headers = input.headers ?? {};
    this.runKeyed(fp.keyedPatterns.headers, Object.entries(headers), 'headers', record);
    const setCookie =
      Object.entries(headers).find(([name]) => name.toLowerCase() === 'set-cookie')?.[1] ?? [];
    const cookies = mergeCookies(input.cookies, cookiesFromSetCookie(setCookie));
    this.runKeyed(
      fp.keyedPatterns.cookies,
      Object.entries(cookies).slice(0, LIMITS.cookies),
      'cookies',
      record,
    );
    const metas = doc.metas.map(({ name, content }) => [name, [content]] as [string, string[]]);
    this.runKeyed(fp.keyedPatterns.meta, metas, 'meta', record);
    this.runKeyed(fp.keyedPatterns.dns, Object.entries(input.dns ?? {}), 'dns', record);

    this.runDom(doc, html, markupFound, record);

    const technologies = resolveTechnologies(fp, found);
    const hintScans = scriptsFound ? [markupFound, scriptsFound] : [markupFound];
    return { technologies, skipped: this.skipped(hintScans, technologies) };
  }

  private runKeyed(
    patterns: KeyedPatterns,
    items: [string, string[]][],
    kind: EvidenceKind,
    record: (
      tech: number,
      kind: EvidenceKind,
      pattern: Pattern,
      match: RegExpExecArray | null,
      key?: string,
    ) => void,
  ): void {
    for (const [name, rawValues] of items) {
      const values = (Array.isArray(rawValues) ? rawValues : [String(rawValues)])
        .slice(0, LIMITS.headerValues)
        .map((v) => bounded(String(v), LIMITS.headerValue));
      const entries = new Set<KeyedEntry[]>();
      const exact = patterns.byKey.get(name.toLowerCase());
      if (exact) entries.add(exact);
      for (const { key, entries: list } of patterns.byRegexKey) if (key.test(name)) entries.add(list);
      for (const list of entries) {
        for (const entry of list) {
          for (const value of values) {
            const match = entry.pattern.regex.exec(value);
            if (match) record(entry.tech, kind, entry.pattern, match, name);
          }
        }
      }
    }
  }

  private runDom(
    doc: ReturnType<typeof parseHtml>,
    html: string,
    markupFound: Uint8Array,
    record: (
      tech: number,
      kind: EvidenceKind,
      pattern: Pattern,
      match: RegExpExecArray | null,
      key?: string,
    ) => void,
  ): void {
    const fp = this.fingerprints;
    const candidates = fp.domPrefilter.candidatesIn([markupFound]);
    if (candidates.length === 0) return;
    const matcher = new DomMatcher(doc, html);
    for (const index of candidates) {
      const rule = fp.domRules[index];
      const nodes = matcher.nodes(rule);
      if (nodes.length === 0) continue;
      if (rule.exists) record(rule.tech, 'dom', rule.exists, null, rule.selector);
      for (const { name, pattern } of rule.attributes) {
        for (const node of nodes) {
          const value = node.attribute(name);
          const match = value === null ? null : pattern.regex.exec(value);
          if (match) {
            record(rule.tech, 'dom', pattern, match, `${rule.selector} @${name}`);
            break;
          }
        }
      }
      if (rule.text) {
        for (const node of nodes) {
          const text = node.text().trim();
          const match = text ? rule.text.regex.exec(text) : null;
          if (match) {
            record(rule.tech, 'dom', rule.text, match, `${rule.selector} ::text`);
            break;
          }
        }
      }
    }
  }

  private skipped(scans: readonly Uint8Array[], detected: { slug: string }[]): SkippedTechnology[] {
    const fp = this.fingerprints;
    const have = new Set(detected.map((t) => t.slug));
    const out = new Map<string, SkippedTechnology>();
    for (const index of fp.hints.candidatesIn(scans)) {
      const owner = fp.hintOwners[index];
      const tech = fp.technologies[owner.tech];
      if (have.has(tech.slug) || out.has(tech.slug)) continue;
      out.set(tech.slug, { slug: tech.slug, name: tech.name, reason: owner.kind });
    }
    return [...out.values()];
  }
}
