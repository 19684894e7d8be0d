import { cpeOf } from './cpe-map';
import { parseSelectorList, selectorLiteral, type Complex } from './css-selector';
import { DomRule, type DomAttribute } from './dom-rule';
import { LiteralTable } from './literal-table';
import { compilePattern, compileUnfilteredPattern, fixedPattern, parseTags, type Pattern } from './pattern';
import { PatternSet, type PatternEntry } from './pattern-set';
import { scanSelectorLiterals } from './selector-scan';
import { requiredLiterals } from './regex-source';
import { assignSlugs, baseSlug } from './slug';

/** The fingerprint format (webappanalyzer's technologies.json / categories.json). */
type RawPatterns = string | number | (string | number)[];
export interface RawTechnology {
  cats?: number[];
  description?: string;
  icon?: string;
  website?: string;
  cpe?: string;
  pricing?: string[];
  saas?: boolean;
  oss?: boolean;
  url?: RawPatterns;
  html?: RawPatterns;
  text?: RawPatterns;
  css?: RawPatterns;
  robots?: RawPatterns;
  scriptSrc?: RawPatterns;
  scripts?: RawPatterns;
  certIssuer?: RawPatterns;
  xhr?: RawPatterns;
  headers?: Record<string, RawPatterns>;
  cookies?: Record<string, RawPatterns>;
  meta?: Record<string, RawPatterns>;
  dns?: Record<string, RawPatterns>;
  js?: Record<string, RawPatterns>;
  dom?: string | string[] | Record<string, RawDom>;
  probe?: Record<string, RawPatterns>;
  implies?: RawPatterns;
  requires?: RawPatterns;
  requiresCategory?: number | number[];
  excludes?: RawPatterns;
}
interface RawDom {
  exists?: string;
  text?: string;
  attributes?: Record<string, string>;
  properties?: Record<string, string>;
}
export interface RawCategory {
  name: string;
  priority?: number;
  groups?: number[];
}

export interface RawGroup {
  name: string;
}

/** A group of categories (webappanalyzer's groups.json): "Marketing" holds Analytics, Advertising... */
export interface CategoryGroup {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
}

export interface Category {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  /** 1 is the most significant (CMS, Ecommerce), 10 the least (Miscellaneous). */
  readonly priority: number;
  readonly groups: readonly number[];
}

export interface Implication {
  readonly tech: number;
  readonly confidence: number;
  readonly version: string;
}

export interface Technology {
  readonly index: number;
  readonly name: string;
  readonly slug: string;
  readonly description: string;
  readonly categories: readonly Category[];
  readonly icon: string;
  readonly website: string;
  readonly cpe?: string;
  readonly pricing: readonly string[];
  readonly saas?: boolean;
  readonly oss?: boolean;
  readonly implies: readonly Implication[];
  /** Technology indices of which one must be present (found or implied) for this one to count. */
  readonly requires: readonly number[];
  readonly requiresCategory: readonly number[];
  readonly excludes: readonly number[];
  /** Pattern kinds of this technology that need a browser. */
  readonly browserOnly: readonly ('js' | 'xhr')[];
  /** Some pattern of the technology (browser-only ones included) can yield a version (a `version` tag). */
  readonly versioned: boolean;
}

export interface FingerprintWarning {
  technology: string;
  kind: string;
  pattern: string;
  message: string;
}

export { DomRule, type DomAttribute } from './dom-rule';

export type TextKind = 'url' | 'html' | 'text' | 'css' | 'robots' | 'scriptSrc' | 'scripts' | 'certIssuer';
export type KeyedKind = 'headers' | 'cookies' | 'meta' | 'dns';

export interface KeyedEntry {
  tech: number;
  key: string;
  pattern: Pattern;
}

/** Keyed patterns (headers, cookies, meta, dns) by lowercased key; cookies may also have regex keys. */
export interface KeyedPatterns {
  byKey: Map<string, KeyedEntry[]>;
  byRegexKey: { key: RegExp; entries: KeyedEntry[] }[];
}

interface TechnologyLookups {
  bySlug: Map<string, Technology>;
  byName: Map<string, Technology>;
  byLowerName: Map<string, Technology>;
  inCategory: Map<number, Technology[]>;
}

interface PrefilterSets {
  textPatterns: Record<TextKind, PatternSet>;
  /** The prefilter of each long keyed list (a meta generator has ~480 patterns), by the list. */
  keyedSets: Map<readonly KeyedEntry[], PatternSet>;
  domPrefilter: PatternSet;
  hints: PatternSet;
  hintOwners: BrowserHint[];
  markupLiterals: LiteralTable;
  pageLiterals: LiteralTable;
}

/** A technology's browser-only patterns (js property names or xhr patterns), as the data has them. */
interface HintSource {
  tech: number;
  kind: 'js' | 'xhr';
  values: (string | number)[];
}

/**
 * The markup literals that hint at each browser-only pattern: a js property's root name (`jQuery` of
 * `jQuery.fn.jquery`), an xhr pattern's required literals.
 */
function hintEntries(sources: readonly HintSource[]): { entries: PatternEntry[]; owners: BrowserHint[] } {
  const entries: PatternEntry[] = [];
  const owners: BrowserHint[] = [];
  for (const { tech, kind, values } of sources) {
    for (const value of values) {
      if (kind === 'js') {
        const root = String(value).split(/[.[]/)[0].replace(/\\/g, '');
        if (root.length < 3) continue;
        entries.push({ tech, pattern: literalPattern(root) });
      } else {
        const literals = requiredLiterals(parseTags(String(value)).value);
        if (!literals) continue;
        entries.push({ tech, pattern: literalPattern(literals[0], literals) });
      }
      owners.push({ tech, kind, value: String(value) });
    }
  }
  return { entries, owners };
}

export interface BrowserHint {
  tech: number;
  kind: 'js' | 'xhr';
  /** The js chain (`jQuery.fn.jquery`) or the xhr pattern as written. */
  value: string;
}

/** One js pattern: the value of a JavaScript property chain of the page's window. */
export interface JsEntry {
  tech: number;
  chain: string;
  pattern: Pattern;
}

/** A live-DOM property pattern (`body > div` with `_reactRootContainer`): needs a browser. */
export interface DomPropertyRule {
  tech: number;
  selector: string;
  properties: { name: string; pattern: Pattern }[];
}

const TEXT_KINDS: TextKind[] = ['url', 'html', 'text', 'css', 'robots', 'scriptSrc', 'scripts', 'certIssuer'];
/** The text kinds whose sets share `pageLiterals`, scanned together on each page. */
const PAGE_KINDS: readonly TextKind[] = ['url', 'text', 'css'];
const KEYED_KINDS: KeyedKind[] = ['headers', 'cookies', 'meta', 'dns'];
/** A keyed list this long gets a literal prefilter; a shorter one runs its few regexes as they are. */
const KEYED_PREFILTER_MIN = 8;

/** How much compiling a slice does before the event loop gets a turn. */
const DEFAULT_SLICE_MS = 20;
const REGEX_KEY = /[\\[\]()*+?{}^$|]/;

/** Shared by every absent field (most of them): nothing is ever added to it. */
const NO_VALUES: (string | number)[] = [];

function toList(value: RawPatterns | undefined): (string | number)[] {
  if (value === undefined || value === null) return NO_VALUES;
  return Array.isArray(value) ? value : [value];
}

/** Every field of the format, each set (undefined when absent): the objects `fieldsOf` makes share one shape. */
const NO_FIELDS: Record<keyof RawTechnology, undefined> = {
  cats: undefined,
  description: undefined,
  icon: undefined,
  website: undefined,
  cpe: undefined,
  pricing: undefined,
  saas: undefined,
  oss: undefined,
  url: undefined,
  html: undefined,
  text: undefined,
  css: undefined,
  robots: undefined,
  scriptSrc: undefined,
  scripts: undefined,
  certIssuer: undefined,
  xhr: undefined,
  headers: undefined,
  cookies: undefined,
  meta: undefined,
  dns: undefined,
  js: undefined,
  dom: undefined,
  probe: undefined,
  implies: undefined,
  requires: undefined,
  requiresCategory: undefined,
  excludes: undefined,
};

/**
 * The technology's fields copied into an object of one fixed shape. The parsed JSON objects come in
 * thousands of shapes (many in dictionary mode), where each of the ~30 reads per technology, mostly
 * of absent fields, is a slow lookup up the prototype chain; one pass over the fields it does have,
 * then monomorphic reads, costs a fraction of that.
 */
function fieldsOf(raw: RawTechnology | undefined): RawTechnology {
  const fields: Record<string, unknown> = { ...NO_FIELDS };
  if (raw) {
    const source = raw as Record<string, unknown>;
    for (const key in source) if (key in NO_FIELDS) fields[key] = source[key];
  }
  return fields as RawTechnology;
}

/** What a compile makes: the fields of a Fingerprints. */
interface CompiledParts {
  technologies: Technology[];
  categories: Category[];
  groups: CategoryGroup[];
  categoryById: Map<number, Category>;
  categoryBySlug: Map<string, Category>;
  textEntries: Record<TextKind, PatternEntry[]>;
  hintSources: HintSource[];
  jsPatterns: Map<string, JsEntry[]>;
  xhrPatterns: PatternEntry[];
  domPropertyRules: DomPropertyRule[];
  keyedPatterns: Record<KeyedKind, KeyedPatterns>;
  domRules: DomRule[];
  warnings: FingerprintWarning[];
  compileMs: number;
  compileCpuMs: number;
}

/** Lets the event loop run between two slices of a compile (setImmediate, or a test's gate). */
export type YieldFn = () => Promise<void>;

/**
 * Wall and CPU time of a compile, the pauses between its slices left out (while paused, the CPU
 * counted is the requests' and the other threads').
 */
function busyClock(): { pause(): void; resume(): void; total(): { ms: number; cpuMs: number } } {
  let ms = 0;
  let cpuMs = 0;
  let wall = performance.now();
  let cpu = process.cpuUsage();
  let running = true;
  return {
    pause() {
      if (!running) return;
      running = false;
      ms += performance.now() - wall;
      const used = process.cpuUsage(cpu);
      cpuMs += (used.user + used.system) / 1000;
    },
    resume() {
      if (running) return;
      running = true;
      wall = performance.now();
      cpu = process.cpuUsage();
    },
    total() {
      this.pause();
      return { ms, cpuMs };
    },
  };
}

/**
 * Runs a compile's steps, one after the other, pausing (`yieldFn`) whenever the steps since the last
 * pause took `sliceMs`: the event loop is then held for about a slice at a time, however large the
 * pack.
 */
async function runInSlices<T>(steps: Generator<void, T>, yieldFn: YieldFn, sliceMs: number): Promise<T> {
  let sliceStarted = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - sliceStarted >= sliceMs) {
      await yieldFn();
      sliceStarted = performance.now();
    }
  }
}

function cpeField(cpe: string | undefined): { cpe?: string } {
  return cpe ? { cpe } : {};
}

/** Runs a compile's steps to the end at once (the synchronous constructor, the CLI, the tests). */
function runToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** The work of every way of compiling, step by step (a step yields between two technologies). */
function* compileSteps(
  rawTechnologies: Record<string, RawTechnology>,
  rawCategories: Record<string, RawCategory>,
  rawGroups: Record<string, RawGroup>,
): Generator<void, CompiledParts> {
  const clock = busyClock();
  const warnings: FingerprintWarning[] = [];
  const warn = (technology: string, kind: string, pattern: string, message: string): void => {
    warnings.push({ technology, kind, pattern, message });
  };

  const categorySlugs = assignSlugs(Object.values(rawCategories).map((c) => c.name));
  const categories: Category[] = Object.entries(rawCategories)
    .map(([id, raw]) => ({
      id: Number(id),
      slug: categorySlugs.get(raw.name) ?? baseSlug(raw.name),
      name: raw.name,
      priority: typeof raw.priority === 'number' ? raw.priority : 10,
      groups: Array.isArray(raw.groups) ? raw.groups : [],
    }))
    .sort((a, b) => a.id - b.id);
  const categoryById = new Map<number, Category>();
  const categoryBySlug = new Map<string, Category>();
  for (const category of categories) {
    categoryById.set(category.id, category);
    categoryBySlug.set(category.slug, category);
  }

  const names = Object.keys(rawTechnologies);
  const slugs = assignSlugs(names);
  const indexOf = new Map(names.map((name, index) => [name, index]));
  const resolveNames = (
    owner: string,
    kind: string,
    raw: RawPatterns | undefined,
  ): { index: number; tags: string }[] => {
    const out: { index: number; tags: string }[] = [];
    for (const entry of toList(raw)) {
      const text = String(entry);
      const cut = text.indexOf('\\;');
      const name = cut < 0 ? text : text.slice(0, cut);
      const index = indexOf.get(name);
      if (index === undefined) warn(owner, kind, text, `unknown technology "${name}"`);
      else out.push({ index, tags: text });
    }
    return out;
  };

  const textEntries: Record<TextKind, PatternEntry[]> = Object.fromEntries(
    TEXT_KINDS.map((k) => [k, []]),
  ) as never;
  const keyed: Record<KeyedKind, KeyedPatterns> = Object.fromEntries(
    KEYED_KINDS.map((k) => [k, { byKey: new Map(), byRegexKey: [] }]),
  ) as never;
  const domRules: DomRule[] = [];
  const hintSources: HintSource[] = [];
  const jsPatterns = new Map<string, JsEntry[]>();
  const xhrPatterns: PatternEntry[] = [];
  const domPropertyRules: DomPropertyRule[] = [];

  // The same pattern text recurs (DOM `exists: ''`, common attribute and header patterns): compiled
  // patterns are immutable, so each text is compiled once; an invalid one is still reported each time.
  // Patterns no literal table reads (DOM values, js, xhr) only get a validity check now; the literals of
  // the others are worked out when the prefilter tables are built.
  const compiledFiltered = new Map<string, Pattern | string>();
  const compiledUnfiltered = new Map<string, Pattern | string>();
  const compileWith =
    (cache: Map<string, Pattern | string>, build: (text: string) => Pattern) =>
    (tech: string, kind: string, raw: string | number): Pattern | null => {
      const text = String(raw);
      let pattern = cache.get(text);
      if (pattern === undefined) {
        try {
          pattern = build(text);
        } catch (error) {
          pattern = (error as Error).message;
        }
        cache.set(text, pattern);
      }
      if (typeof pattern !== 'string') return pattern;
      warn(tech, kind, text, `invalid regular expression skipped: ${pattern}`);
      return null;
    };
  const compile = compileWith(compiledFiltered, compilePattern);
  const compileUnfiltered = compileWith(compiledUnfiltered, compileUnfilteredPattern);

  const technologies: Technology[] = [];
  for (let index = 0; index < names.length; index++) {
    // One technology per step: the sliced compile may let the event loop run between two.
    clock.pause();
    yield;
    clock.resume();
    const name = names[index];
    const raw = fieldsOf(rawTechnologies[name]);
    for (const kind of TEXT_KINDS) {
      for (let value of toList(raw[kind])) {
        if (kind === 'url' && typeof value === 'string' && /^\^?https\??\/\//.test(value)) {
          warn(name, kind, value, 'url pattern lacks ":" after the scheme; matched as https?://');
          value = value.replace(/^(\^?https\??)\/\//, '$1://');
        }
        const pattern = compile(name, kind, value);
        if (pattern) textEntries[kind].push({ tech: index, pattern });
      }
    }
    for (const kind of KEYED_KINDS) {
      const group = raw[kind];
      if (!group || typeof group !== 'object') continue;
      for (const [key, values] of Object.entries(group)) {
        const entries: KeyedEntry[] = [];
        for (const value of toList(values)) {
          const pattern = compile(name, kind, value);
          if (pattern) entries.push({ tech: index, key, pattern });
        }
        const lower = key.toLowerCase();
        const list = keyed[kind].byKey.get(lower);
        if (list) list.push(...entries);
        else keyed[kind].byKey.set(lower, entries);
        if (kind === 'cookies' && REGEX_KEY.test(key)) {
          // A cookie key such as SESS[a-f0-9]{32} is a regex anchored at the start of the name;
          // the exact name (mybb[lastactive]) still matches through byKey.
          try {
            keyed.cookies.byRegexKey.push({
              key: new RegExp(`^(?:${key.replace(/^\(\?i\)/, '')})`, 'i'),
              entries,
            });
          } catch (error) {
            warn(
              name,
              kind,
              key,
              `cookie name is not a valid regex, matched as a plain name: ${(error as Error).message}`,
            );
          }
        }
      }
    }
    compileDom(name, index, raw.dom, domRules, warn, compileUnfiltered, domPropertyRules);

    const browserOnly: ('js' | 'xhr')[] = [];
    if (raw.js && typeof raw.js === 'object') {
      const properties = Object.keys(raw.js);
      if (properties.length) {
        browserOnly.push('js');
        hintSources.push({ tech: index, kind: 'js', values: properties });
      }
      for (const [chain, values] of Object.entries(raw.js)) {
        for (const value of toList(values)) {
          const pattern = compileUnfiltered(name, 'js', value);
          if (!pattern) continue;
          const list = jsPatterns.get(chain);
          if (list) list.push({ tech: index, chain, pattern });
          else jsPatterns.set(chain, [{ tech: index, chain, pattern }]);
        }
      }
    }
    if (raw.xhr !== undefined) {
      browserOnly.push('xhr');
      hintSources.push({ tech: index, kind: 'xhr', values: toList(raw.xhr) });
      for (const value of toList(raw.xhr)) {
        const pattern = compileUnfiltered(name, 'xhr', value);
        if (pattern) xhrPatterns.push({ tech: index, pattern });
      }
    }

    const implies: Implication[] = resolveNames(name, 'implies', raw.implies).map(({ index: tech, tags }) => {
      const parsed = parseTags(tags);
      return { tech, confidence: parsed.confidence, version: parsed.version };
    });
    const requiresCategory = toList(raw.requiresCategory as RawPatterns).map(Number);
    for (const id of requiresCategory) {
      if (!categoryById.has(id)) warn(name, 'requiresCategory', String(id), `unknown category ${id}`);
    }
    const cats = Array.isArray(raw.cats) ? raw.cats : [];
    const techCategories: Category[] = [];
    for (const id of cats) {
      const category = categoryById.get(id);
      if (category) techCategories.push(category);
      else warn(name, 'cats', String(id), `unknown category ${id}`);
    }
    technologies.push({
      index,
      name,
      slug: slugs.get(name) as string,
      description: raw.description ?? '',
      categories: techCategories,
      icon: raw.icon ?? 'default.svg',
      website: raw.website ?? '',
      ...cpeField(cpeOf(name, raw.cpe)),
      pricing: Array.isArray(raw.pricing) ? raw.pricing : [],
      ...(typeof raw.saas === 'boolean' ? { saas: raw.saas } : {}),
      ...(typeof raw.oss === 'boolean' ? { oss: raw.oss } : {}),
      implies,
      requires: resolveNames(name, 'requires', raw.requires).map((r) => r.index),
      requiresCategory,
      excludes: resolveNames(name, 'excludes', raw.excludes).map((r) => r.index),
      browserOnly,
      versioned: VERSIONED_KINDS.some((kind) => hasVersionTag(raw[kind])),
    });
  }

  const groupSlugs = assignSlugs(Object.values(rawGroups).map((g) => String(g?.name ?? '')));
  const groups = Object.entries(rawGroups)
    .filter(([id, raw]) => /^\d+$/.test(id) && typeof raw?.name === 'string' && raw.name !== '')
    .map(([id, raw]) => ({
      id: Number(id),
      slug: groupSlugs.get(raw.name) ?? baseSlug(raw.name),
      name: raw.name,
    }))
    .sort((a, b) => a.id - b.id);
  const { ms, cpuMs } = clock.total();
  return {
    technologies,
    categories,
    groups,
    categoryById,
    categoryBySlug,
    textEntries,
    hintSources,
    jsPatterns,
    xhrPatterns,
    domPropertyRules,
    keyedPatterns: keyed,
    domRules,
    warnings,
    compileMs: ms,
    compileCpuMs: cpuMs,
  };
}

/** Compiled fingerprints and the catalogue of technologies and categories. Immutable once built. */
export class Fingerprints {
  readonly technologies: readonly Technology[];
  readonly categories: readonly Category[];
  /** Category groups, by id order; empty when the data has none. */
  readonly groups: readonly CategoryGroup[];
  readonly warnings: readonly FingerprintWarning[];
  readonly keyedPatterns: Readonly<Record<KeyedKind, KeyedPatterns>>;
  readonly domRules: readonly DomRule[];
  /** Milliseconds spent compiling (parsing the JSON excluded). */
  readonly compileMs: number;
  /** CPU milliseconds of the compile (all threads, GC included): less distorted by machine load. */
  readonly compileCpuMs: number;

  /** What the prefilters are built from; the sets themselves are built when first needed. */
  private readonly textEntries: Record<TextKind, PatternEntry[]>;
  private readonly hintSources: HintSource[];
  /** js patterns by chain (a browser reads each chain once, however many patterns it has). */
  readonly jsPatterns: ReadonlyMap<string, readonly JsEntry[]>;
  /** xhr patterns, matched against the host (and path) of each XHR/fetch request of a rendered page. */
  readonly xhrPatterns: readonly PatternEntry[];
  readonly domPropertyRules: readonly DomPropertyRule[];
  private sets: PrefilterSets | null = null;

  /** Technology look-ups by slug, name and category, built on first use (the engine uses indices). */
  private lookups: TechnologyLookups | null = null;
  private readonly categoryBySlugMap: Map<string, Category>;
  private readonly categoryByIdMap: Map<number, Category>;

  constructor(
    rawTechnologies: Record<string, RawTechnology>,
    rawCategories: Record<string, RawCategory>,
    rawGroups: Record<string, RawGroup> = {},
    /** The parts compileInSlices made (the same steps); without them the steps run here, at once. */
    compiled?: CompiledParts,
  ) {
    const parts = compiled ?? runToEnd(compileSteps(rawTechnologies, rawCategories, rawGroups));
    this.technologies = parts.technologies;
    this.categories = parts.categories;
    this.groups = parts.groups;
    this.categoryByIdMap = parts.categoryById;
    this.categoryBySlugMap = parts.categoryBySlug;
    this.textEntries = parts.textEntries;
    this.hintSources = parts.hintSources;
    this.jsPatterns = parts.jsPatterns;
    this.xhrPatterns = parts.xhrPatterns;
    this.domPropertyRules = parts.domPropertyRules;
    this.keyedPatterns = parts.keyedPatterns;
    this.domRules = parts.domRules;
    this.warnings = parts.warnings;
    this.compileMs = parts.compileMs;
    this.compileCpuMs = parts.compileCpuMs;
  }

  /**
   * The same object the constructor builds, by the same steps, with the event loop let run
   * (`yieldFn`) about every `sliceMs` of work: a live switch compiles a set while the process serves
   * requests. Then the prefilter tables, built the same way.
   */
  static async compileInSlices(
    rawTechnologies: Record<string, RawTechnology>,
    rawCategories: Record<string, RawCategory>,
    rawGroups: Record<string, RawGroup> = {},
    yieldFn: YieldFn,
    sliceMs = DEFAULT_SLICE_MS,
  ): Promise<Fingerprints> {
    const parts = await runInSlices(
      compileSteps(rawTechnologies, rawCategories, rawGroups),
      yieldFn,
      sliceMs,
    );
    await yieldFn();
    const fingerprints = new Fingerprints(rawTechnologies, rawCategories, rawGroups, parts);
    await fingerprints.prepareInSlices(yieldFn, sliceMs);
    return fingerprints;
  }

  /** Builds the prefilter tables now, in slices, rather than on the first page (a no-op once built). */
  async prepareInSlices(yieldFn: YieldFn, sliceMs = DEFAULT_SLICE_MS): Promise<void> {
    if (this.sets) return;
    const sets = await runInSlices(this.prefilterSteps(), yieldFn, sliceMs);
    // A page analysed meanwhile built them at once: keep those, which it may already have used.
    this.sets ??= sets;
  }

  get textPatterns(): Readonly<Record<TextKind, PatternSet>> {
    return this.prefilterSets().textPatterns;
  }

  get domPrefilter(): PatternSet {
    return this.prefilterSets().domPrefilter;
  }

  get hints(): PatternSet {
    return this.prefilterSets().hints;
  }

  /** The technology and kind of each entry of `hints`. */
  get hintOwners(): readonly BrowserHint[] {
    return this.prefilterSets().hintOwners;
  }

  /** The literal prefilter of a keyed list (KeyedPatterns.byKey's), when it is long enough to have one. */
  keyedPrefilter(list: readonly KeyedEntry[]): PatternSet | undefined {
    return this.prefilterSets().keyedSets.get(list);
  }

  /** The literal table shared by the html, scripts, DOM and hint sets (the markup is scanned once). */
  get markupLiterals(): LiteralTable {
    return this.prefilterSets().markupLiterals;
  }

  /** The literal table shared by the url, text and css sets (PAGE_KINDS): one scan of the three texts. */
  get pageLiterals(): LiteralTable {
    return this.prefilterSets().pageLiterals;
  }

  /**
   * The prefilter sets, built on first use: finding ~15,000 patterns' literals and building the
   * literal tables costs ~100 ms that start-up (the path every process pays, often just to serve the
   * catalogue) need not; the first page pays it once instead.
   */
  private prefilterSets(): PrefilterSets {
    this.sets ??= runToEnd(this.prefilterSteps());
    return this.sets;
  }

  /**
   * The prefilter tables' work, step by step: each pattern's literal analysis, then each set and
   * each table's automaton.
   */
  private *prefilterSteps(): Generator<void, PrefilterSets> {
    for (const kind of TEXT_KINDS)
      for (const entry of this.textEntries[kind]) {
        void entry.pattern.literals;
        yield;
      }
    // html, script bodies, DOM selectors and browser hints are all looked for in the markup (hints in
    // script bodies too): one table, one pass per text.
    const markup = new LiteralTable();
    // The page's address, text and styles: short texts, each scan's fixed cost paid once for the
    // three (a set's candidates from another's literals only run a regex that does not match).
    const page = new LiteralTable();
    const textPatterns = {} as Record<TextKind, PatternSet>;
    for (const k of TEXT_KINDS) {
      textPatterns[k] = new PatternSet(
        this.textEntries[k],
        k === 'html' || k === 'scripts' ? markup : PAGE_KINDS.includes(k) ? page : undefined,
      );
      yield;
    }
    const domPrefilter = new PatternSet(
      this.domRules.map((rule, index) => ({ tech: index, pattern: literalPattern('', rule.literals) })),
      markup,
    );
    yield;
    const { entries, owners } = hintEntries(this.hintSources);
    yield;
    const hints = new PatternSet(entries, markup);
    yield;
    for (const k of TEXT_KINDS) {
      textPatterns[k].table.build();
      yield;
    }
    // The long keyed lists of a kind share one table (a header value is scanned once for its list).
    const keyedSets = new Map<readonly KeyedEntry[], PatternSet>();
    for (const kind of KEYED_KINDS) {
      const table = new LiteralTable();
      for (const list of this.keyedPatterns[kind].byKey.values()) {
        if (list.length < KEYED_PREFILTER_MIN) continue;
        keyedSets.set(list, new PatternSet(list, table));
        yield;
      }
      table.build();
      yield;
    }
    return {
      textPatterns,
      keyedSets,
      domPrefilter,
      hints,
      hintOwners: owners,
      markupLiterals: markup,
      pageLiterals: page,
    };
  }

  private technologyLookups(): TechnologyLookups {
    if (this.lookups) return this.lookups;
    const lookups: TechnologyLookups = {
      bySlug: new Map(),
      byName: new Map(),
      byLowerName: new Map(),
      inCategory: new Map(),
    };
    for (const technology of this.technologies) {
      lookups.bySlug.set(technology.slug, technology);
      lookups.byName.set(technology.name, technology);
      const lower = technology.name.toLowerCase();
      if (!lookups.byLowerName.has(lower)) lookups.byLowerName.set(lower, technology);
      for (const category of technology.categories) {
        const list = lookups.inCategory.get(category.id);
        if (list) list.push(technology);
        else lookups.inCategory.set(category.id, [technology]);
      }
    }
    this.lookups = lookups;
    return lookups;
  }

  technologyBySlug(slug: string): Technology | undefined {
    return this.technologyLookups().bySlug.get(slug);
  }

  /** Exact name first, then case-insensitively. */
  technologyByName(name: string): Technology | undefined {
    const { byName, byLowerName } = this.technologyLookups();
    return byName.get(name) ?? byLowerName.get(name.toLowerCase());
  }

  categoryBySlug(slug: string): Category | undefined {
    return this.categoryBySlugMap.get(slug);
  }

  categoryById(id: number): Category | undefined {
    return this.categoryByIdMap.get(id);
  }

  /** Technologies of a category (by slug or id), in data order; empty for an unknown category. */
  technologiesInCategory(category: string | number): readonly Technology[] {
    const found =
      typeof category === 'number'
        ? this.categoryByIdMap.get(category)
        : this.categoryBySlugMap.get(category);
    return found ? (this.technologyLookups().inCategory.get(found.id) ?? []) : [];
  }

  /** Warnings counted by message kind (the text before the first ":"). */
  warningCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const warning of this.warnings) {
      const kind = warning.message.split(':')[0].replace(/ "[^"]*"| \d+/g, '');
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
    return counts;
  }
}

/** Pattern fields that can carry a version tag for the technology itself (not implies, which version others). */
const VERSIONED_KINDS = [...TEXT_KINDS, ...KEYED_KINDS, 'xhr', 'js', 'dom'] as const;
const VERSION_TAG = /\\;version:(?!$|\\;)/;

/** True when a raw pattern field (a string, a list, or an object of them, DOM specs included) has a version tag. */
function hasVersionTag(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return VERSION_TAG.test(value);
  if (depth > 4 || typeof value !== 'object' || value === null) return false;
  return Object.values(value).some((inner) => hasVersionTag(inner, depth + 1));
}

/** The regex of patterns that never run one (they share it: without the g flag exec keeps no state). */
const NO_REGEX = /(?:)/;

/** A pattern that never runs a regex of its own: the prefilter literal (or the given ones) is all there is. */
function literalPattern(literal: string, literals?: string[] | null): Pattern {
  const lower = literal.toLowerCase();
  return fixedPattern(
    literal,
    NO_REGEX,
    literals !== undefined ? literals : lower.length >= 3 ? [lower] : null,
  );
}

function compileDom(
  name: string,
  tech: number,
  raw: RawTechnology['dom'],
  out: DomRule[],
  warn: (technology: string, kind: string, pattern: string, message: string) => void,
  compile: (technology: string, kind: string, raw: string) => Pattern | null,
  propertyRules: DomPropertyRule[],
): void {
  if (raw === undefined || raw === null) return;
  const rules: [string, RawDom][] =
    typeof raw === 'string' || Array.isArray(raw)
      ? toList(raw).map((selector) => [String(selector), { exists: '' }])
      : Object.entries(raw);
  for (const [rawSelector, spec] of rules) {
    // A few selectors carry tags themselves (`form[...]\;confidence:40`): they apply to `exists`.
    const selectorTags = parseTags(rawSelector);
    const selector = selectorTags.value.trim();
    // The common selectors only need a scan now (their tree is built on first use); the rest are
    // parsed at once, so a selector the engine cannot read is reported at load.
    const scanned = scanSelectorLiterals(selector);
    let complexes: Complex[] | null | undefined;
    if (scanned === undefined) {
      try {
        complexes = parseSelectorList(selector);
      } catch (error) {
        complexes = null;
        warn(
          name,
          'dom',
          selector,
          `selector the engine cannot read, never matched: ${(error as Error).message}`,
        );
      }
    }
    const compileOrWarn = (value: string, kind: string): Pattern | null => compile(name, kind, value);
    let exists: Pattern | null = null;
    const hasExists = spec && typeof spec === 'object' && 'exists' in spec;
    const isEmptySpec = !spec || typeof spec !== 'object' || Object.keys(spec).length === 0;
    if (hasExists || isEmptySpec) {
      const tags = hasExists ? String(spec.exists ?? '') : '';
      exists = compileOrWarn(
        rawSelector.includes('\\;') && !tags ? `\\;${rawSelector.split('\\;').slice(1).join('\\;')}` : tags,
        'dom',
      );
    }
    const attributes: DomAttribute[] = [];
    for (const [attribute, value] of Object.entries(spec?.attributes ?? {})) {
      const pattern = compileOrWarn(String(value), 'dom');
      if (pattern) attributes.push({ name: attribute.toLowerCase(), pattern });
    }
    const text = spec?.text !== undefined ? compileOrWarn(String(spec.text), 'dom') : null;
    const properties: DomPropertyRule['properties'] = [];
    for (const [property, value] of Object.entries(spec?.properties ?? {})) {
      const pattern = compileOrWarn(String(value), 'dom');
      if (pattern) properties.push({ name: property, pattern });
    }
    if (properties.length) propertyRules.push({ tech, selector, properties });
    if (!exists && attributes.length === 0 && !text) continue; // properties only: needs a browser
    let literals: string[] | null = null;
    if (scanned !== undefined) {
      literals = scanned;
    } else if (complexes) {
      const each = complexes.map(selectorLiteral);
      literals = each.every((l): l is string => l !== null) ? [...new Set(each)] : null;
    } else {
      continue; // a selector the engine cannot read (reported above) never matches
    }
    out.push(new DomRule(tech, selector, complexes, literals, exists, attributes, text));
  }
}
