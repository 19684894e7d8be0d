import type { DetectedTechnology, Evidence } from './detection-result';
import type { DetectionInput } from './detection-input';
import { jsLiteralRanges, literalAround, type LiteralRange } from './js-literals';
import type { Pattern } from './pattern';

/**
 * Context rules: checks upstream's fingerprint format cannot express, applied by the engine so a
 * pattern that matched in the wrong place, or an implication the page contradicts, is not reported.
 * Each rule is a named unit; the accuracy bench (bench/accuracy.bench.ts) measures what each removes
 * on the corpus of real software and that recall stays the same, and docs/detection.md has the figures.
 */
export type ContextRuleName =
  'literal-only-match' | 'lookalike-class-name' | 'contradicted-build-tool' | 'protocol-not-negotiated';

export const CONTEXT_RULES: readonly ContextRuleName[] = [
  'literal-only-match',
  'lookalike-class-name',
  'contradicted-build-tool',
  'protocol-not-negotiated',
];

/* ------------------------------------------------------------------------------------------------
 * a. literal-only-match
 * A `scripts` or `html` pattern whose match is a path or a file extension (`\.php`, `/wp-content`)
 * says something about a site when the code uses it; the same text in a string or comment of a script is
 * usually someone else's: a URL in a library's error message, an example in its documentation, a
 * default option. So such a pattern counts only when one of its matches lies in code (or, in html,
 * outside inline scripts). Patterns that extract a version are left alone: their text is the
 * library's banner about itself (`/*! jQuery v3.7.1 *\/`), which lives in a comment or string by
 * nature. Patterns naming a host (`api.vendor.com/`) are left alone too: a loader holds its
 * service's host in a string, and that is what the pattern is for.
 * ---------------------------------------------------------------------------------------------- */

/** A host name with a top-level domain: a service's address, not a generic path. */
const HOST_LIKE = /[a-z0-9-]\.[a-z0-9-]+\.[a-z]{2,}|[a-z0-9-]{2,}\.(?:com|net|org|io|co|ai|app|dev|cloud)\b/i;
/**
 * A path (`/wp-content`) or a file extension (`.php?`): text any script may carry for any server.
 * A slash inside words ("GNU/Linux") is not a path.
 */
const PATH_LIKE = /^\W{0,2}[/.]|\.[a-z][a-z0-9]{0,4}(?![\w(])/i;

/** Whether a pattern's match is one rule a judges (the kinds it applies to are the engine's concern). */
export function literalRuleApplies(pattern: Pattern, matched: string): boolean {
  if (pattern.version) return false;
  return PATH_LIKE.test(matched) && !HOST_LIKE.test(matched);
}

/**
 * The literal ranges of a text, worked out once per text: a script body is JavaScript throughout;
 * in html only the bodies of inline scripts are (html comments and attributes are markup).
 */
export class LiteralMap {
  private readonly cache = new Map<string, LiteralRange[]>();

  rangesOf(text: string, kind: 'scripts' | 'html'): LiteralRange[] {
    let ranges = this.cache.get(text);
    if (!ranges) {
      ranges = kind === 'scripts' ? jsLiteralRanges(text) : inlineScriptLiterals(text);
      this.cache.set(text, ranges);
    }
    return ranges;
  }
}

/** Script types whose body is JavaScript or JSON (a template's body is markup). */
const JS_TYPE =
  /^\s*(?:(?:text|application)\/(?:java|ecma|x-java)script|module|(?:application\/)?(?:ld\+)?json|importmap)\s*$/i;
const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;

function inlineScriptLiterals(html: string): LiteralRange[] {
  const out: LiteralRange[] = [];
  INLINE_SCRIPT.lastIndex = 0;
  for (let m = INLINE_SCRIPT.exec(html); m; m = INLINE_SCRIPT.exec(html)) {
    const type = /\btype\s*=\s*["']?([^"'\s>]*)/i.exec(m[1])?.[1];
    if (type !== undefined && type !== '' && !JS_TYPE.test(type)) continue;
    const offset = m.index + m[0].indexOf('>') + 1;
    for (const r of jsLiteralRanges(m[2])) out.push({ ...r, start: r.start + offset, end: r.end + offset });
  }
  return out;
}

/**
 * Whether a pattern that matched `text` matched only inside literals. Every match is looked at (the
 * pattern's regex is run again with the global flag), so one match in code is enough to count.
 */
export function onlyInLiterals(pattern: Pattern, text: string, ranges: readonly LiteralRange[]): boolean {
  if (ranges.length === 0) return false;
  const global = new RegExp(
    pattern.regex.source,
    pattern.regex.flags.includes('g') ? pattern.regex.flags : `${pattern.regex.flags}g`,
  );
  for (let m = global.exec(text); m; m = global.exec(text)) {
    if (!literalAround(ranges, m.index, m.index + Math.max(1, m[0].length))) return false;
    if (m[0].length === 0) global.lastIndex++;
  }
  return true;
}

/* ------------------------------------------------------------------------------------------------
 * b. lookalike-class-name
 * Class names and markup conventions are not owned: a fork keeps its origin's class names (Fork
 * Awesome's `fa fa-*` are Font Awesome's), and a convention spreads (Mustache templates use the
 * `text/x-handlebars-template` script type Handlebars made popular). When the lookalike's own marker
 * is on the page and the library is found by such markup alone, without its script, stylesheet or
 * anything else of its own to corroborate it, it is the lookalike's markup and is not reported.
 * Requiring corroboration for every class-name detection instead was measured on the corpus: it
 * removed no false positive and lost true ones (WordPress Block Editor's wp-block-* classes are its
 * only trace), so the rule names its lookalikes.
 * ---------------------------------------------------------------------------------------------- */

/** Markup-only evidence: html patterns and DOM selectors, which a lookalike's markup can satisfy. */
export function isMarkupEvidence(e: Evidence): boolean {
  return e.kind === 'dom' || e.kind === 'html';
}

/** A selector made of class selectors only (`.swiper-container`, `div.owl-carousel`, a list of them). */
const CLASS_ONLY_SELECTOR =
  /^\s*(?:[a-z0-9]*\.[\w-]+(?:\.[\w-]+)*\s*)(?:,\s*[a-z0-9]*\.[\w-]+(?:\.[\w-]+)*\s*)*$/i;
/** An attribute selector on class (`[class*='fa']`), or a DOM attribute pattern on class. */
const CLASS_ATTRIBUTE = /^\s*[a-z0-9]*\[class[~^$*|]?=[^\]]*\](?:\s|$)| @class$/i;
/** An html pattern that looks for a class attribute's value. */
const CLASS_HTML_PATTERN = /class\s*=|class\\?s?\*?=/i;

/** Whether a piece of evidence is only a class name. */
export function isClassNameEvidence(e: Evidence): boolean {
  if (e.kind === 'dom') {
    const key = e.key ?? '';
    if (CLASS_ATTRIBUTE.test(key)) return true;
    const selector = key.replace(/ ::text$/, '');
    return CLASS_ONLY_SELECTOR.test(selector);
  }
  if (e.kind === 'html') return CLASS_HTML_PATTERN.test(e.pattern);
  return false;
}

/**
 * Lookalikes upstream cannot tell apart: the technology whose markup they reuse, and a marker (a
 * regex on the page's html) only the lookalike has. Each was found on the corpus (docs/detection.md).
 */
export const LOOKALIKE_MARKERS: readonly { technology: string; lookalike: string; marker: RegExp }[] = [
  // Fork Awesome keeps Font Awesome's fa and fa-* class names; its stylesheet is fork-awesome.css.
  { technology: 'Font Awesome', lookalike: 'Fork Awesome', marker: /fork-awesome(?:\.min)?\.css/i },
  // Mustache templates use the script type Handlebars made popular; Mustache's script is mustache.js.
  {
    technology: 'Handlebars',
    lookalike: 'Mustache',
    marker: /<script[^>]+src=["'][^"']*mustache(?:\.min)?\.js/i,
  },
];

/* ------------------------------------------------------------------------------------------------
 * c. contradicted-build-tool
 * Frameworks imply the bundler they shipped with when the fingerprint was written (Next.js and
 * Docusaurus imply Webpack); the same frameworks now build with others (Turbopack, Rspack, Vite).
 * When the page itself shows another bundler, the implied one is not what built it.
 * ---------------------------------------------------------------------------------------------- */

export const BUILD_TOOLS: ReadonlySet<string> = new Set([
  'Webpack',
  'Vite',
  'Rspack',
  'Turbopack',
  'Parcel',
  'Rollup',
  'esbuild',
]);

/* ------------------------------------------------------------------------------------------------
 * d. protocol-not-negotiated
 * HTTP/2 and HTTP/3 are implied by servers that support them (H2O implies HTTP/2), but whether a
 * site serves them is the connection's fact. Over cleartext http: no browser speaks HTTP/2 or
 * HTTP/3, and a browser only uses HTTP/3 where the response advertises it (Alt-Svc: h3); so an
 * implied protocol the connection could not have used is not reported. Direct evidence (an Alt-Svc
 * header) is kept.
 * ---------------------------------------------------------------------------------------------- */

export const PROTOCOLS: ReadonlyMap<string, string> = new Map([
  ['HTTP/2', 'h2'],
  ['HTTP/3', 'h3'],
  ['SPDY', 'spdy'],
]);

function protocolPossible(name: string, input: DetectionInput): boolean {
  let scheme = '';
  try {
    scheme = new URL(input.url).protocol;
  } catch {
    return true; // nothing known of the connection
  }
  if (scheme === 'http:') return false;
  if (name === 'HTTP/3') {
    const altSvc = Object.entries(input.headers ?? {})
      .filter(([key]) => key.toLowerCase() === 'alt-svc')
      .flatMap(([, values]) => values)
      .join(',');
    return /\bh3\b/i.test(altSvc);
  }
  return true;
}

/** What a rule removed: the technology and the rule. */
export interface Suppression {
  name: string;
  rule: ContextRuleName;
}

/**
 * Rule b on what a page matched, before implications are resolved (so what a dropped technology
 * implies goes with it): a technology whose lookalike's marker is on the page and whose every piece
 * of evidence is markup.
 */
export function lookalikeClassNames(
  found: Pick<ReadonlyMap<string, readonly Evidence[]>, 'get'>,
  html: string,
): Suppression[] {
  const removed: Suppression[] = [];
  for (const { technology, marker } of LOOKALIKE_MARKERS) {
    const evidence = found.get(technology);
    if (!evidence || evidence.length === 0 || !evidence.every(isMarkupEvidence)) continue;
    if (marker.test(html)) removed.push({ name: technology, rule: 'lookalike-class-name' });
  }
  return removed;
}

/**
 * Rules c and d on a resolved list: returns what is kept and what each rule removed. What only a
 * removed technology implied (`impliedBy` names the present technologies implying one) goes with it.
 */
export function applyResolvedRules(
  technologies: readonly DetectedTechnology[],
  input: DetectionInput,
  rules: ReadonlySet<ContextRuleName>,
  impliedBy: (name: string, present: ReadonlySet<string>) => string[],
): { kept: DetectedTechnology[]; removed: Suppression[] } {
  const removed: Suppression[] = [];
  const drop = new Set<string>();

  if (rules.has('contradicted-build-tool')) {
    const shown = technologies.filter((t) => BUILD_TOOLS.has(t.name) && !t.implied);
    if (shown.length > 0) {
      for (const t of technologies) {
        if (t.implied && BUILD_TOOLS.has(t.name)) {
          drop.add(t.name);
          removed.push({ name: t.name, rule: 'contradicted-build-tool' });
        }
      }
    }
  }

  if (rules.has('protocol-not-negotiated')) {
    for (const t of technologies) {
      if (t.implied && PROTOCOLS.has(t.name) && !protocolPossible(t.name, input)) {
        drop.add(t.name);
        removed.push({ name: t.name, rule: 'protocol-not-negotiated' });
      }
    }
  }

  if (drop.size === 0) return { kept: [...technologies], removed };
  const present = new Set(technologies.map((t) => t.name));
  let changed = true;
  while (changed) {
    changed = false;
    for (const t of technologies) {
      if (!t.implied || drop.has(t.name)) continue;
      const by = impliedBy(t.name, present);
      if (by.length > 0 && by.every((name) => drop.has(name))) {
        drop.add(t.name);
        changed = true;
      }
    }
  }
  return { kept: technologies.filter((t) => !drop.has(t.name)), removed };
}
