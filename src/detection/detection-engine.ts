import type { DetectionInput } from './detection-input';
import {
  EVIDENCE_MATCH_LIMIT,
  MAX_EVIDENCE,
  type DetectedTechnology,
  type DetectionResult,
  type Evidence,
  type EvidenceKind,
  type SkippedTechnology,
} from './detection-result';
import {
  applyResolvedRules,
  CONTEXT_RULES,
  LiteralMap,
  literalRuleApplies,
  lookalikeClassNames,
  onlyInLiterals,
  type ContextRuleName,
} from './context-rules';
import { DomMatcher } from './dom-matcher';
import type { LiteralScan } from './literal-table';
import type { Fingerprints, KeyedEntry, KeyedPatterns, TextKind } from './fingerprints';
import { parseHtml } from '../html';
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
 * A header's (cookie's, meta's) values within the bounds, as strings: the list itself when it already
 * is (the usual case), without copying it twice.
 */
function boundedValues(raw: unknown): readonly string[] {
  if (!Array.isArray(raw)) return [bounded(String(raw), LIMITS.headerValue)];
  let within = raw.length <= LIMITS.headerValues;
  for (let k = 0; k < raw.length && within; k++) {
    const value: unknown = raw[k];
    within = typeof value === 'string' && value.length <= LIMITS.headerValue;
  }
  if (within) return raw as string[];
  return raw.slice(0, LIMITS.headerValues).map((v) => bounded(String(v), LIMITS.headerValue));
}

/**
 * The items with their empty forms dropped, and items left with none: the items themselves when
 * nothing is to drop (the usual case), without copying them.
 */
function nonEmptyForms(items: readonly (readonly string[])[]): readonly (readonly string[])[] {
  for (const forms of items) {
    let empty = forms.length === 0;
    for (let k = 0; k < forms.length && !empty; k++) empty = forms[k].length === 0;
    if (empty) return items.map((f) => f.filter((t) => t.length > 0)).filter((f) => f.length > 0);
  }
  return items;
}

/** Notes one piece of evidence: which technology, from what, the pattern and its match. */
type RecordEvidence = (
  tech: number,
  kind: EvidenceKind,
  pattern: Pattern,
  match: RegExpExecArray | null,
  key?: string,
) => void;

export interface EngineOptions {
  /**
   * The context rules applied (context-rules.ts): all of them by default; `[]` matches as the
   * upstream fingerprints alone would (the accuracy bench's baseline).
   */
  contextRules?: readonly ContextRuleName[];
}

/**
 * Matches one fetched page against the compiled fingerprints. Synchronous, no I/O, no shared state
 * between calls: one engine serves any number of analyses.
 */
export class DetectionEngine {
  /**
   * @param version the fingerprint version these fingerprints were compiled from (the active pack
   * set's): every observation made with this engine records it.
   */
  constructor(
    readonly fingerprints: Fingerprints,
    readonly version: string = 'unversioned',
    options: EngineOptions = {},
  ) {
    this.rules = new Set(options.contextRules ?? CONTEXT_RULES);
  }

  /** The context rules this engine applies. */
  readonly rules: ReadonlySet<ContextRuleName>;

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
        if (version) {
          acc.versions.push(version);
          if (kind === 'scripts' || kind === 'css') (acc.stated ??= []).push(version);
        }
      }
      if (acc.evidence.length < MAX_EVIDENCE) {
        const matched = match ? match[0].slice(0, EVIDENCE_MATCH_LIMIT) : '';
        // Two literals rather than a spread of an optional key: the same objects (keys in the same
        // order), without building and copying a throw-away object per piece of evidence.
        acc.evidence.push(
          key !== undefined
            ? { kind, key, pattern: pattern.source, matched }
            : { kind, pattern: pattern.source, matched },
        );
      }
    };

    const html = boundHtml(typeof input.html === 'string' ? input.html : '');
    // The page's one reading when the fetcher made it from this html, else a reading of our own.
    const doc =
      input.parsed !== undefined && input.parsed.html === html ? input.parsed.light : parseHtml(html);
    const literals = this.rules.has('literal-only-match') ? new LiteralMap() : null;
    const url = bounded(String(input.url ?? ''), LIMITS.url);

    /**
     * Runs a kind's candidate patterns on each item; every matching item counts. An item may have
     * several forms (a script URL as written and resolved): the first form that matches counts.
     */
    const runTexts = (kind: TextKind, items: readonly (readonly string[])[], scanned?: LiteralScan): void => {
      const set = fp.textPatterns[kind];
      const usable = nonEmptyForms(items);
      if (usable.length === 0) return;
      const texts = usable.length === 1 ? usable[0] : usable.flat();
      const candidates = scanned ? set.candidatesIn([scanned], texts) : set.candidates(texts);
      const markup = kind === 'html';
      for (const index of candidates) {
        const { tech, pattern } = set.entries[index];
        const search = markup ? pattern.markupSearch : pattern.regex;
        for (const forms of usable) {
          for (const text of forms) {
            const match = search.exec(text);
            if (match) {
              // Rule a: a path-like pattern found only in a script's strings and comments does not count.
              if (
                literals &&
                (kind === 'scripts' || kind === 'html') &&
                literalRuleApplies(pattern, match[0]) &&
                onlyInLiterals(pattern, text, literals.rangesOf(text, kind))
              )
                break;
              record(tech, kind, pattern, match);
              break;
            }
          }
        }
      }
    };

    // One pass over the markup for the html patterns, the DOM prefilter and the browser hints.
    const markupFound = fp.markupLiterals.scanFound([html]);
    const styles = input.css ? [...doc.styles, ...input.css] : doc.styles;
    const css = bounded(styles.join('\n'), LIMITS.cssTotal);
    // One scan of the address, the text and the styles for their patterns (PAGE_KINDS).
    const pageFound = fp.pageLiterals.scanFound([url, doc.text, css]);
    runTexts('url', [[url]], pageFound);
    runTexts('html', [[html]], markupFound);
    runTexts('text', [[doc.text]], pageFound);
    runTexts('css', [[css]], pageFound);
    if (input.robots) runTexts('robots', [[bounded(input.robots, LIMITS.robots)]]);
    if (input.certIssuer) runTexts('certIssuer', [[bounded(input.certIssuer, LIMITS.headerValue)]]);

    // A rendered page's scripts include those a loader added: they join the static ones (once each).
    const rendered = input.rendered;
    const renderedDoc = rendered ? parseHtml(boundHtml(rendered.html)) : null;
    const staticScripts = input.scriptSrc ?? doc.scriptSrc;
    runTexts(
      'scriptSrc',
      scriptUrls(
        renderedDoc ? [...staticScripts, ...renderedDoc.scriptSrc] : staticScripts,
        doc.baseHref,
        url,
      ),
    );
    const scripts = (input.scripts ?? [])
      .slice(0, LIMITS.scriptBodies)
      .map((s) => bounded(s, LIMITS.scriptBody));
    const scriptsFound = scripts.length ? fp.markupLiterals.scanFound(scripts) : null;
    runTexts(
      'scripts',
      scripts.map((s) => [s]),
      scriptsFound ?? undefined,
    );

    const headers = Object.entries(input.headers ?? {});
    this.runKeyed(fp.keyedPatterns.headers, headers, 'headers', record);
    const setCookie = headers.find(([name]) => name.toLowerCase() === 'set-cookie')?.[1] ?? [];
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

    const domMatched = this.runDom(doc, markupFound, record);

    if (rendered && renderedDoc) {
      const renderedHtml = boundHtml(rendered.html);
      const renderedFound = fp.markupLiterals.scanFound([renderedHtml]);
      // What scripts wrote into the page (a stylesheet link, a generator comment) is markup too.
      runTexts('html', [[renderedHtml]], renderedFound);
      this.runDom(renderedDoc, renderedFound, record, domMatched);
      this.runRendered(rendered, record);
      // Everything a browser could try was tried: nothing is left skipped.
      return {
        technologies: this.resolve(found, input, html),
        skipped: [],
        fingerprintsVersion: this.version,
      };
    }

    const technologies = this.resolve(found, input, html);
    const hintScans = scriptsFound ? [markupFound, scriptsFound] : [markupFound];
    return {
      technologies,
      skipped: this.skipped(hintScans, technologies),
      fingerprintsVersion: this.version,
    };
  }

  /** Resolution with the context rules that judge whole technologies (b before, c and d after). */
  private resolve(
    found: Map<number, Accumulated>,
    input: DetectionInput,
    html: string,
  ): DetectedTechnology[] {
    const fp = this.fingerprints;
    if (this.rules.has('lookalike-class-name')) {
      // The rule asks about a few names: a look-up over what was found, not a map of all of it.
      const byName = {
        get: (name: string): readonly Evidence[] | undefined => {
          let evidence: readonly Evidence[] | undefined;
          for (const [index, acc] of found) if (fp.technologies[index].name === name) evidence = acc.evidence;
          return evidence;
        },
      };
      const suppressed = lookalikeClassNames(byName, html);
      if (suppressed.length > 0) {
        const removed = new Set(suppressed.map((s) => s.name));
        for (const index of [...found.keys()])
          if (removed.has(fp.technologies[index].name)) found.delete(index);
      }
    }
    const technologies = resolveTechnologies(fp, found);
    if (!this.rules.has('contradicted-build-tool') && !this.rules.has('protocol-not-negotiated'))
      return technologies;
    return applyResolvedRules(technologies, input, this.rules, (name, present) =>
      this.impliersOf(name, present),
    ).kept;
  }

  private impliersOf(name: string, present: ReadonlySet<string>): string[] {
    const fp = this.fingerprints;
    const out: string[] = [];
    for (const candidate of present) {
      const tech = fp.technologyByName(candidate);
      if (tech?.implies.some((i) => fp.technologies[i.tech].name === name)) out.push(candidate);
    }
    return out;
  }

  /**
   * The js chains worth reading in a rendered page: those whose root name occurs in what the page
   * loaded (its live DOM and script bodies), found by the same literal prefilter that reports skipped
   * technologies, plus the few chains with roots too short to look for (`$`, `_`, `ko`). A few dozen
   * chains instead of ~5,600: reading them all costs hundreds of milliseconds per page.
   */
  jsChainsFor(texts: readonly string[]): string[] {
    const fp = this.fingerprints;
    const bounded = texts.slice(0, LIMITS.scriptBodies + 1).map((t) => boundHtml(String(t)));
    const scan = fp.markupLiterals.scanFound(bounded);
    const chains = new Set(this.unfilteredChains());
    for (const index of fp.hints.candidatesIn([scan])) {
      const owner = fp.hintOwners[index];
      if (owner.kind === 'js' && fp.jsPatterns.has(owner.value)) chains.add(owner.value);
    }
    return [...chains];
  }

  /** Live-DOM property probes (selector and property names) for a browser to read. */
  domPropertyProbes(): { selector: string; properties: string[] }[] {
    const bySelector = new Map<string, Set<string>>();
    for (const rule of this.fingerprints.domPropertyRules) {
      const names = bySelector.get(rule.selector) ?? new Set<string>();
      rule.properties.forEach((p) => names.add(p.name));
      bySelector.set(rule.selector, names);
    }
    return [...bySelector].map(([selector, names]) => ({ selector, properties: [...names] }));
  }

  private shortChains: string[] | null = null;

  private unfilteredChains(): string[] {
    this.shortChains ??= [...this.fingerprints.jsPatterns.keys()].filter(
      (chain) => chain.split(/[.[]/)[0].replace(/\\/g, '').length < 3,
    );
    return this.shortChains;
  }

  /** js values, XHR requests and live-DOM properties of a rendered page. */
  private runRendered(rendered: NonNullable<DetectionInput['rendered']>, record: RecordEvidence): void {
    const fp = this.fingerprints;
    for (const [chain, value] of Object.entries(rendered.js ?? {})) {
      // false: the chain exists but holds nothing (an empty pattern would otherwise match "false").
      if (value === false) continue;
      const text = bounded(String(value), LIMITS.headerValue);
      for (const entry of fp.jsPatterns.get(chain) ?? []) {
        const match = entry.pattern.regex.exec(text);
        if (match) record(entry.tech, 'js', entry.pattern, match, chain);
      }
    }
    // Each request as its host and as host + path: a pattern counts once, on the first it matches.
    const requests = (rendered.xhr ?? []).slice(0, LIMITS.scriptUrls).map((request) => {
      const text = bounded(String(request), LIMITS.scriptUrl);
      const slash = text.indexOf('/');
      return slash < 0 ? [text] : [text.slice(0, slash), text];
    });
    if (requests.length) {
      for (const { tech, pattern } of fp.xhrPatterns) {
        search: for (const forms of requests) {
          for (const text of forms) {
            const match = pattern.regex.exec(text);
            if (match) {
              record(tech, 'xhr', pattern, match, forms[forms.length - 1]);
              break search;
            }
          }
        }
      }
    }
    const properties = rendered.domProperties ?? {};
    for (const rule of fp.domPropertyRules) {
      const values = properties[rule.selector];
      if (!values) continue;
      for (const { name, pattern } of rule.properties) {
        const value = values[name];
        if (value === undefined || value === false) continue;
        const match = pattern.regex.exec(bounded(String(value), LIMITS.headerValue));
        if (match) record(rule.tech, 'dom', pattern, match, `${rule.selector} .${name}`);
      }
    }
  }

  private runKeyed(
    patterns: KeyedPatterns,
    items: [string, string[]][],
    kind: EvidenceKind,
    record: RecordEvidence,
  ): void {
    for (const [name, rawValues] of items) {
      const values = boundedValues(rawValues);
      // The lists the name selects, each once, in the order found (a Set per item cost more).
      const entries: KeyedEntry[][] = [];
      const exact = patterns.byKey.get(name.toLowerCase());
      if (exact) entries.push(exact);
      for (const { key, entries: list } of patterns.byRegexKey)
        if (key.test(name) && !entries.includes(list)) entries.push(list);
      for (const list of entries) {
        // A long list runs only the patterns whose literals the values hold (in the list's order).
        const prefilter = this.fingerprints.keyedPrefilter(list);
        const indices = prefilter ? prefilter.candidates(values) : null;
        const count = indices ? indices.length : list.length;
        for (let k = 0; k < count; k++) {
          const entry = list[indices ? indices[k] : k];
          for (const value of values) {
            const match = entry.pattern.regex.exec(value);
            if (match) record(entry.tech, kind, entry.pattern, match, name);
          }
        }
      }
    }
  }

  /** Runs the DOM rules the markup allows (but those in `skip`); returns the rules that found nodes. */
  private runDom(
    doc: ReturnType<typeof parseHtml>,
    markupFound: LiteralScan,
    record: RecordEvidence,
    skip?: ReadonlySet<number>,
  ): Set<number> {
    const fp = this.fingerprints;
    const matched = new Set<number>();
    const candidates = fp.domPrefilter.candidatesIn([markupFound]);
    if (candidates.length === 0) return matched;
    const run = skip ? candidates.filter((index) => !skip.has(index)) : candidates;
    const matcher = new DomMatcher(
      doc,
      run.map((index) => fp.domRules[index]),
    );
    const hasAttribute = (name: string): boolean => matcher.hasAttribute(name);
    for (const index of run) {
      const rule = fp.domRules[index];
      // A rule reading nothing off the elements needs only to know whether there are any.
      const reads = rule.readsNodes(hasAttribute);
      if (!(reads ? matcher.nodes(rule).length > 0 : matcher.matchesAny(rule))) continue;
      matched.add(index);
      if (rule.exists) record(rule.tech, 'dom', rule.exists, null, rule.selector);
      if (!reads) continue;
      const nodes = matcher.nodes(rule);
      for (const { name, pattern } of rule.attributes) {
        for (const node of nodes) {
          const value = matcher.attribute(node, name);
          const match = value === null ? null : pattern.regex.exec(value);
          if (match) {
            record(rule.tech, 'dom', pattern, match, `${rule.selector} @${name}`);
            break;
          }
        }
      }
      if (rule.text) {
        const match = matcher.firstTextMatch(nodes, rule.text.regex);
        if (match) record(rule.tech, 'dom', rule.text, match, `${rule.selector} ::text`);
      }
    }
    return matched;
  }

  /** Per technology, the index of the first technology of its slug: one mark per slug. */
  private slugOwners: Int32Array | null = null;
  private slugMarks: Uint8Array | null = null;

  private skipped(scans: readonly LiteralScan[], detected: { slug: string }[]): SkippedTechnology[] {
    const fp = this.fingerprints;
    const owners = (this.slugOwners ??= firstOfSlug(fp.technologies));
    // Marks by slug owner rather than a Set and a Map of slugs per page; a call runs to its end
    // without yielding and clears what it set, so one array serves every call.
    const marks = (this.slugMarks ??= new Uint8Array(owners.length));
    const marked: number[] = [];
    for (const { slug } of detected) {
      const tech = fp.technologyBySlug(slug);
      if (tech === undefined || marks[owners[tech.index]] !== 0) continue;
      marks[owners[tech.index]] = 1;
      marked.push(owners[tech.index]);
    }
    const out: SkippedTechnology[] = [];
    for (const index of fp.hints.candidatesIn(scans)) {
      const owner = fp.hintOwners[index];
      const slugOwner = owners[owner.tech];
      if (marks[slugOwner] !== 0) continue;
      marks[slugOwner] = 1;
      marked.push(slugOwner);
      const tech = fp.technologies[owner.tech];
      out.push({ slug: tech.slug, name: tech.name, reason: owner.kind });
    }
    for (const slugOwner of marked) marks[slugOwner] = 0;
    return out;
  }
}

/** Per technology, the index of the first technology with its slug. */
function firstOfSlug(technologies: readonly { slug: string }[]): Int32Array {
  const first = new Map<string, number>();
  return Int32Array.from(technologies, ({ slug }, index) => {
    const owner = first.get(slug);
    if (owner !== undefined) return owner;
    first.set(slug, index);
    return index;
  });
}
