import { createHash } from 'node:crypto';

import bundledGroups from './category-groups.json';
import { parseSelectorList } from './css-selector';
import type { PackFile, PackSource } from './pack-files';
import { compilePattern, compileUnfilteredPattern } from './pattern';
import { rewriteForSafety } from './regex-source';
import { scanSelectorLiterals } from './selector-scan';

/**
 * An error makes the pack unusable as written (the engine would skip or misread what it names); a
 * warning is something the engine tolerates and works around, said so the operator knows.
 */
export type Severity = 'error' | 'warning';

export interface PackProblem {
  severity: Severity;
  /** The file, relative to the pack's root (technologies/w.json). */
  file: string;
  /** The technology (or category / group id) concerned, when there is one. */
  technology?: string;
  /** The field's path within it (implies[2], headers.X-Powered-By, dom["a.b"].attributes.href). */
  field?: string;
  message: string;
}

export interface PackSummary {
  technologies: number;
  categories: number;
  groups: number;
  /** The version the pack declares (pack.json), else `sha256:` and the hash of its files. */
  version: string;
  /** Whether `version` was declared by the pack (false: the content hash). */
  versionDeclared: boolean;
  errors: number;
  warnings: number;
}

export interface PackReport {
  ok: boolean;
  summary: PackSummary;
  problems: PackProblem[];
}

/** `technologies/w.json: WordPress.implies[2]: "PHPx" is not a technology of this pack`. */
export function formatProblem(problem: PackProblem): string {
  const where = [problem.technology, problem.field].filter((part) => part !== undefined).join('.');
  return `${problem.severity}: ${problem.file}: ${where ? `${where}: ` : ''}${problem.message}`;
}

type Report = (
  file: string,
  technology: string | undefined,
  field: string | undefined,
  message: string,
) => void;

/** Pattern fields read as text (a string or a list of them). */
const TEXT_FIELDS = ['url', 'html', 'text', 'css', 'robots', 'scriptSrc', 'scripts', 'certIssuer', 'xhr'];
/** Pattern fields keyed by a name (a header, a cookie, a meta name, a DNS record type, a js chain). */
const KEYED_FIELDS = ['headers', 'cookies', 'meta', 'dns', 'js', 'probe'];
/** Fields whose patterns feed a prefilter in the engine (the rest are compiled without one). */
const PREFILTERED = new Set(['url', 'html', 'text', 'css', 'robots', 'scriptSrc', 'scripts', 'certIssuer']);
/**
 * `$comment` is a known field the engine ignores: where a correction says what upstream gets wrong
 * and the evidence (data/fingerprints/corrections), kept in the entry so it travels with it upstream.
 */
const STRING_FIELDS = ['description', 'icon', 'website', 'cpe', '$comment'];
const BOOLEAN_FIELDS = ['saas', 'oss'];
const NAME_FIELDS = ['implies', 'requires', 'excludes'] as const;
const KNOWN_FIELDS = new Set([
  'cats',
  'pricing',
  'requiresCategory',
  'dom',
  ...TEXT_FIELDS,
  ...KEYED_FIELDS,
  ...STRING_FIELDS,
  ...BOOLEAN_FIELDS,
  ...NAME_FIELDS,
]);
const DOM_SPEC_FIELDS = new Set(['exists', 'text', 'attributes', 'properties']);
const REGEX_KEY = /[\\[\]()*+?{}^$|]/;

/** A field name as a path segment: plain names dotted, others quoted (dom["meta[name=x]"]). */
function segment(key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Line and column of a JSON.parse error position, added when the message has only the offset. */
function jsonError(text: string, error: Error): string {
  const message = error.message;
  const at = /at position (\d+)/.exec(message);
  if (!at || /line \d+/.test(message)) return message;
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  const column = Number(at[1]) - before.lastIndexOf('\n');
  return `${message} (line ${line}, column ${column})`;
}

function parseFile(file: PackFile, report: Report): unknown {
  try {
    return JSON.parse(file.text);
  } catch (error) {
    report(file.name, undefined, undefined, `invalid JSON: ${jsonError(file.text, error as Error)}`);
    return undefined;
  }
}

/** How many capturing groups a (valid) regex has. */
function groupCount(source: string): number {
  return (new RegExp(`${source}|`, 'i').exec('') as RegExpExecArray).length - 1;
}

/**
 * The checks of one pattern (`regex\;version:\1\;confidence:50`), under the engine's rules: the
 * engine's own compilation (which throws where the engine would skip the pattern), the tag syntax, the
 * groups a version template refers to, and whether the engine's safety rewrite keeps the regex valid.
 */
function checkPattern(
  raw: unknown,
  where: { file: string; technology: string; field: string; kind: string },
  error: Report,
  warn: Report,
): void {
  const { file, technology, field, kind } = where;
  if (typeof raw !== 'string' && typeof raw !== 'number') {
    error(file, technology, field, `must be a string (a pattern), not ${typeName(raw)}`);
    return;
  }
  let source = String(raw);
  if (kind === 'url' && /^\^?https\??\/\//.test(source)) {
    warn(file, technology, field, 'lacks ":" after the scheme; the engine matches it as https?://');
    source = source.replace(/^(\^?https\??)\/\//, '$1://');
  }
  const [value, ...tags] = source.split('\\;');
  let version = '';
  for (const tag of tags) {
    const colon = tag.indexOf(':');
    const key = colon < 0 ? tag : tag.slice(0, colon).trim();
    const tagValue = colon < 0 ? '' : tag.slice(colon + 1);
    if (colon < 0 || (key !== 'version' && key !== 'confidence')) {
      error(file, technology, field, `tag "\\;${tag}" is not \\;version:… or \\;confidence:…`);
    } else if (key === 'confidence' && !/^\d{1,3}$/.test(tagValue.trim())) {
      error(file, technology, field, `confidence "${tagValue}" is not a whole number from 0 to 100`);
    } else if (key === 'confidence' && Number(tagValue) > 100) {
      error(file, technology, field, `confidence ${tagValue} is above 100`);
    } else if (key === 'version') {
      version = tagValue;
    }
  }
  try {
    (PREFILTERED.has(kind) ? compilePattern : compileUnfilteredPattern)(source);
  } catch (thrown) {
    error(file, technology, field, `invalid regular expression: ${(thrown as Error).message}`);
    return;
  }
  const regex = value.replace(/^\(\?[imsx]+\)/, '');
  const groups = groupCount(regex);
  // An implied technology's version is written out, not taken from a match.
  const matched = !(NAME_FIELDS as readonly string[]).includes(kind);
  for (const match of matched ? version.matchAll(/\\(\d+)/g) : []) {
    if (Number(match[1]) > groups)
      warn(
        file,
        technology,
        field,
        `version refers to group \\${match[1]}; the regex has ${groups === 1 ? '1 group' : `${groups} groups`}, so the engine yields no version from it`,
      );
  }
  try {
    new RegExp(rewriteForSafety(regex), 'i');
  } catch {
    warn(
      file,
      technology,
      field,
      "the engine's safety rewrite (bounded quantifiers) does not compile; it runs the regex unbounded",
    );
  }
}

/** A string or a list of strings (how the loader reads every text field). */
function eachEntry(
  value: unknown,
  field: string,
  report: (entry: unknown, path: string) => void,
  wrongType: (message: string) => void,
): void {
  if (Array.isArray(value)) value.forEach((entry, index) => report(entry, `${field}[${index}]`));
  else if (typeof value === 'string' || typeof value === 'number') report(value, field);
  else wrongType(`must be a string or a list of strings, not ${typeName(value)}`);
}

interface TechnologyRecord {
  file: string;
  raw: Record<string, unknown>;
}

function checkDom(file: string, technology: string, dom: unknown, error: Report, warn: Report): void {
  const checkSelector = (rawSelector: string, field: string): void => {
    const [selector, ...tags] = rawSelector.split('\\;');
    if (tags.length)
      checkPattern(`\\;${tags.join('\\;')}`, { file, technology, field, kind: 'dom' }, error, warn);
    const trimmed = selector.trim();
    if (trimmed === '') {
      error(file, technology, field, 'empty selector');
      return;
    }
    if (scanSelectorLiterals(trimmed) !== undefined) return;
    try {
      parseSelectorList(trimmed);
    } catch (thrown) {
      const literal = /[A-Za-z0-9_-]{3,}/.test(trimmed);
      warn(
        file,
        technology,
        field,
        literal
          ? `selector the engine's parser does not understand (${(thrown as Error).message}): it never matches`
          : `selector the engine skips: not understood (${(thrown as Error).message}) and nothing to prefilter it by`,
      );
    }
  };
  if (typeof dom === 'string' || Array.isArray(dom)) {
    eachEntry(
      dom,
      'dom',
      (entry, path) =>
        typeof entry === 'string'
          ? checkSelector(entry, path)
          : error(file, technology, path, `must be a string (a selector), not ${typeName(entry)}`),
      (message) => error(file, technology, 'dom', message),
    );
    return;
  }
  if (!isObject(dom)) {
    error(
      file,
      technology,
      'dom',
      `must be a selector, a list of selectors or an object, not ${typeName(dom)}`,
    );
    return;
  }
  for (const [selector, spec] of Object.entries(dom)) {
    const path = `dom${segment(selector)}`;
    checkSelector(selector, path);
    if (!isObject(spec)) {
      error(
        file,
        technology,
        path,
        `must be an object ({exists, text, attributes, properties}), not ${typeName(spec)}`,
      );
      continue;
    }
    for (const [key, value] of Object.entries(spec)) {
      const field = `${path}.${key}`;
      if (!DOM_SPEC_FIELDS.has(key)) {
        warn(file, technology, field, 'unknown field: the engine ignores it');
      } else if (key === 'exists' || key === 'text') {
        checkPattern(value, { file, technology, field, kind: 'dom' }, error, warn);
      } else if (!isObject(value)) {
        error(file, technology, field, `must be an object of patterns, not ${typeName(value)}`);
      } else {
        for (const [name, pattern] of Object.entries(value))
          checkPattern(
            pattern,
            { file, technology, field: `${field}${segment(name)}`, kind: 'dom' },
            error,
            warn,
          );
      }
    }
  }
}

function checkTechnology(
  name: string,
  { file, raw }: TechnologyRecord,
  categoryIds: ReadonlySet<number>,
  names: ReadonlySet<string>,
  error: Report,
  warn: Report,
): void {
  const wrong = (field: string) => (message: string) => error(file, name, field, message);
  for (const [field, value] of Object.entries(raw)) {
    if (!KNOWN_FIELDS.has(field)) {
      warn(file, name, field, 'unknown field: the engine ignores it');
    } else if (STRING_FIELDS.includes(field)) {
      if (typeof value !== 'string') error(file, name, field, `must be a string, not ${typeName(value)}`);
    } else if (BOOLEAN_FIELDS.includes(field)) {
      if (typeof value !== 'boolean')
        error(file, name, field, `must be true or false, not ${typeName(value)}`);
    } else if (field === 'pricing') {
      if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string'))
        error(file, name, field, 'must be a list of strings');
    } else if (field === 'cats' || field === 'requiresCategory') {
      const ids = field === 'requiresCategory' && !Array.isArray(value) ? [value] : value;
      if (!Array.isArray(ids)) {
        error(file, name, field, `must be a list of category ids, not ${typeName(value)}`);
        continue;
      }
      ids.forEach((id, index) => {
        const path = Array.isArray(value) ? `${field}[${index}]` : field;
        if (typeof id !== 'number' || !Number.isInteger(id))
          error(file, name, path, `must be a category id (a whole number), not ${JSON.stringify(id)}`);
        else if (!categoryIds.has(id)) error(file, name, path, `${id} is not a category of this pack`);
      });
    } else if (TEXT_FIELDS.includes(field)) {
      eachEntry(
        value,
        field,
        (entry, path) =>
          checkPattern(entry, { file, technology: name, field: path, kind: field }, error, warn),
        wrong(field),
      );
    } else if (KEYED_FIELDS.includes(field)) {
      if (!isObject(value)) {
        error(file, name, field, `must be an object of names to patterns, not ${typeName(value)}`);
        continue;
      }
      for (const [key, patterns] of Object.entries(value)) {
        const path = `${field}${segment(key)}`;
        if (field === 'cookies' && REGEX_KEY.test(key)) {
          try {
            new RegExp(`^(?:${key.replace(/^\(\?i\)/, '')})`, 'i');
          } catch (thrown) {
            warn(
              file,
              name,
              path,
              `cookie name is not a valid regex (${(thrown as Error).message}): matched as a plain name`,
            );
          }
        }
        eachEntry(
          patterns,
          path,
          (entry, entryPath) =>
            checkPattern(entry, { file, technology: name, field: entryPath, kind: field }, error, warn),
          wrong(path),
        );
      }
    } else if (field === 'dom') {
      checkDom(file, name, value, error, warn);
    } else {
      // implies, requires, excludes: names of technologies (implies may carry tags).
      eachEntry(
        value,
        field,
        (entry, path) => {
          if (typeof entry !== 'string') {
            error(file, name, path, `must be a technology name, not ${typeName(entry)}`);
            return;
          }
          const [target, ...tags] = entry.split('\\;');
          if (!names.has(target)) error(file, name, path, `"${target}" is not a technology of this pack`);
          if (tags.length)
            checkPattern(
              `\\;${tags.join('\\;')}`,
              { file, technology: name, field: path, kind: field },
              error,
              warn,
            );
        },
        wrong(field),
      );
    }
  }
  if (raw.cats === undefined) error(file, name, 'cats', 'missing: every technology needs a category');
}

/** The technologies each one implies (names that exist only). */
function impliedNames(raw: Record<string, unknown>, names: ReadonlySet<string>): string[] {
  const value = raw.implies;
  const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return list
    .filter((entry): entry is string => typeof entry === 'string')
    .map((entry) => entry.split('\\;')[0])
    .filter((target) => names.has(target));
}

/**
 * Every cycle of `implies`, each once, as the path around it (A → B → A), from an iterative
 * depth-first search: a back edge to a technology on the current path closes a cycle.
 */
export function impliesCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[][] = [];
  const seen = new Set<string>();
  for (const start of graph.keys()) {
    if (state.has(start)) continue;
    const path: string[] = [];
    const stack: { node: string; next: number }[] = [{ node: start, next: 0 }];
    state.set(start, 'open');
    path.push(start);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const edges = graph.get(top.node) ?? [];
      if (top.next >= edges.length) {
        state.set(top.node, 'done');
        stack.pop();
        path.pop();
        continue;
      }
      const target = edges[top.next++];
      const targetState = state.get(target);
      if (targetState === 'open') {
        const cycle = path.slice(path.indexOf(target));
        // The same cycle is reported once, whichever technology it is entered by.
        const smallest = cycle.reduce((min, node, index) => (node < cycle[min] ? index : min), 0);
        const rotated = [...cycle.slice(smallest), ...cycle.slice(0, smallest)];
        const key = rotated.join('\u0000');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push([...rotated, rotated[0]]);
        }
      } else if (targetState === undefined) {
        state.set(target, 'open');
        path.push(target);
        stack.push({ node: target, next: 0 });
      }
    }
  }
  return cycles;
}

/** The version a pack declares in pack.json, or the problem with it. */
function declaredVersion(manifest: PackFile | undefined, error: Report): string | undefined {
  if (!manifest) return undefined;
  const parsed = parseFile(manifest, error);
  if (parsed === undefined) return undefined;
  const version = isObject(parsed) ? parsed.version : undefined;
  if (typeof version === 'string' && version.trim() !== '') return version.trim();
  error(manifest.name, undefined, 'version', "must be a non-empty string (the pack's version)");
  return undefined;
}

/** SHA-256 of the pack's files in name order, each as its name, NUL, its text, NUL. */
export function contentHash(source: PackSource): string {
  const files = [source.categories, ...source.technologies, ...(source.groups ? [source.groups] : [])];
  if (source.manifest) files.push(source.manifest);
  const hash = createHash('sha256');
  for (const file of [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)))
    hash.update(file.name).update('\0').update(file.text).update('\0');
  return hash.digest('hex');
}

/**
 * What an overlay is laid over: the technologies, categories and groups of the packs below it, which
 * its references may name (an overlay fixing one upstream entry still implies upstream technologies).
 */
export interface PackContext {
  technologies: ReadonlySet<string>;
  categories: ReadonlySet<number>;
  groups: ReadonlySet<number>;
}

/**
 * Checks a whole pack and reports every problem found (not only the first): JSON syntax, each field's
 * type, each pattern compiled as the engine compiles it, unknown categories and groups, implies /
 * requires / excludes naming technologies the pack lacks, and cycles of implies. With `over`, the
 * pack is checked as an overlay: names, categories and groups of the packs below it count as known.
 */
export function validatePack(source: PackSource, over?: PackContext): PackReport {
  const problems: PackProblem[] = [];
  const reporter =
    (severity: Severity): Report =>
    (file, technology, field, message) =>
      problems.push({
        severity,
        file,
        ...(technology !== undefined ? { technology } : {}),
        ...(field !== undefined ? { field } : {}),
        message,
      });
  const error = reporter('error');
  const warn = reporter('warning');

  const groups = source.groups ? parseFile(source.groups, error) : bundledGroups;
  const groupIds = new Set<number>();
  if (source.groups && groups !== undefined && !isObject(groups))
    error(
      source.groups.name,
      undefined,
      undefined,
      `must be an object of group ids, not ${typeName(groups)}`,
    );
  else if (isObject(groups)) {
    for (const [id, group] of Object.entries(groups)) {
      const file = source.groups?.name ?? 'groups.json';
      if (!/^\d+$/.test(id)) error(file, id, undefined, 'a group id must be a whole number');
      else if (!isObject(group) || typeof group.name !== 'string' || group.name.trim() === '')
        error(file, id, 'name', 'must be a non-empty string');
      else groupIds.add(Number(id));
    }
  }

  const knownGroups = new Set([...(over?.groups ?? []), ...groupIds]);
  const categories = parseFile(source.categories, error);
  const categoryIds = new Set<number>();
  if (categories !== undefined && !isObject(categories))
    error(
      source.categories.name,
      undefined,
      undefined,
      `must be an object of category ids, not ${typeName(categories)}`,
    );
  else if (isObject(categories)) {
    const file = source.categories.name;
    for (const [id, category] of Object.entries(categories)) {
      if (!/^\d+$/.test(id)) {
        error(file, id, undefined, 'a category id must be a whole number');
        continue;
      }
      categoryIds.add(Number(id));
      if (!isObject(category)) {
        error(file, id, undefined, `must be an object ({name, priority, groups}), not ${typeName(category)}`);
        continue;
      }
      if (typeof category.name !== 'string' || category.name.trim() === '')
        error(file, id, 'name', 'must be a non-empty string');
      if (category.priority !== undefined && typeof category.priority !== 'number')
        error(file, id, 'priority', `must be a number, not ${typeName(category.priority)}`);
      if (category.groups !== undefined) {
        if (!Array.isArray(category.groups)) error(file, id, 'groups', 'must be a list of group ids');
        else
          category.groups.forEach((group, index) => {
            if (!knownGroups.has(group as number))
              error(file, id, `groups[${index}]`, `${JSON.stringify(group)} is not a group of this pack`);
          });
      }
    }
  }

  const technologies = new Map<string, TechnologyRecord>();
  for (const file of source.technologies) {
    const parsed = parseFile(file, error);
    if (parsed === undefined) continue;
    if (!isObject(parsed)) {
      error(
        file.name,
        undefined,
        undefined,
        `must be an object of technologies by name, not ${typeName(parsed)}`,
      );
      continue;
    }
    for (const [name, raw] of Object.entries(parsed)) {
      const earlier = technologies.get(name);
      if (earlier)
        error(file.name, name, undefined, `defined in ${earlier.file} too (the later file would win)`);
      if (!isObject(raw)) {
        error(file.name, name, undefined, `must be an object of fields, not ${typeName(raw)}`);
        continue;
      }
      technologies.set(name, { file: file.name, raw });
    }
  }
  const names = new Set([...(over?.technologies ?? []), ...technologies.keys()]);
  const knownCategories = new Set([...(over?.categories ?? []), ...categoryIds]);
  for (const [name, record] of technologies)
    checkTechnology(name, record, knownCategories, names, error, warn);

  const graph = new Map([...technologies].map(([name, { raw }]) => [name, impliedNames(raw, names)]));
  // The engine resolves each implied technology once, so a cycle cannot loop it: it only means the
  // technologies on it always come together (upstream's JsRender and JsViews). Said, not refused.
  for (const cycle of impliesCycles(graph)) {
    const first = technologies.get(cycle[0]) as TechnologyRecord;
    const message =
      cycle.length === 2
        ? 'implies itself: the engine ignores it'
        : `cycle: ${cycle.join(' → ')}; the engine resolves each technology once, so all of them are reported whenever one is`;
    warn(first.file, cycle[0], 'implies', message);
  }

  const declared = declaredVersion(source.manifest, error);
  const errors = problems.filter((problem) => problem.severity === 'error').length;
  return {
    ok: errors === 0,
    summary: {
      technologies: technologies.size,
      categories: categoryIds.size,
      groups: groupIds.size,
      version: declared ?? `sha256:${contentHash(source)}`,
      versionDeclared: declared !== undefined,
      errors,
      warnings: problems.length - errors,
    },
    problems,
  };
}
