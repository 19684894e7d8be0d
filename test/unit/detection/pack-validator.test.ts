import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { defaultFingerprintDirectory } from '../../../src/detection/fingerprints-loader';
import { readPack } from '../../../src/detection/pack-files';
import { formatProblem, impliesCycles, validatePack } from '../../../src/detection/pack-validator';

const CATEGORIES = { '1': { name: 'CMS', priority: 1, groups: [3] }, '2': { name: 'Programming languages' } };
const GROUPS = { '3': { name: 'Content' } };

/** A valid pair of technologies in webappanalyzer's shape. */
const VALID = {
  PHP: {
    cats: [2],
    website: 'https://php.net',
    headers: { 'X-Powered-By': '^php/?([\\d.]+)?\\;version:\\1' },
  },
  WordPress: {
    cats: [1],
    website: 'https://wordpress.org',
    html: ['<link rel=["\']stylesheet["\'] [^>]+/wp-(?:content|includes)/'],
    meta: { generator: '^WordPress ?([\\d.]+)?\\;version:\\1\\;confidence:90' },
    dom: { 'link[href*="/wp-content/"]': { attributes: { href: 'ver=([\\d.]+)\\;version:\\1' } } },
    implies: ['PHP\\;confidence:50'],
  },
};

describe('fingerprint pack validation', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pack-check-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The split layout: technologies/<letter>.json, categories.json and groups.json at the root. */
  const splitPack = (files: Record<string, unknown>, extra: Record<string, unknown> = {}): string => {
    mkdirSync(join(dir, 'technologies'));
    for (const [name, content] of Object.entries(files))
      writeFileSync(
        join(dir, 'technologies', name),
        typeof content === 'string' ? content : JSON.stringify(content),
      );
    writeFileSync(join(dir, 'categories.json'), JSON.stringify(CATEGORIES));
    writeFileSync(join(dir, 'groups.json'), JSON.stringify(GROUPS));
    for (const [name, content] of Object.entries(extra))
      writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
    return dir;
  };
  /** The single-file layout: technologies.json and categories.json. */
  const singlePack = (technologies: unknown): string => {
    writeFileSync(join(dir, 'technologies.json'), JSON.stringify(technologies));
    writeFileSync(join(dir, 'categories.json'), JSON.stringify(CATEGORIES));
    return dir;
  };
  const check = (path: string) => validatePack(readPack(path));
  const errors = (path: string) =>
    check(path)
      .problems.filter((problem) => problem.severity === 'error')
      .map(formatProblem);

  it('a valid pack in either layout: no problems, the summary counts it', () => {
    const split = check(
      splitPack({ 'p.json': { PHP: VALID.PHP }, 'w.json': { WordPress: VALID.WordPress } }),
    );
    expect(split.problems).toEqual([]);
    expect(split.ok).toBe(true);
    expect(split.summary).toMatchObject({
      technologies: 2,
      categories: 2,
      groups: 1,
      errors: 0,
      warnings: 0,
    });
    expect(split.summary.version).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(split.summary.versionDeclared).toBe(false);

    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const single = check(singlePack(VALID));
    expect(single.problems).toEqual([]);
    expect(single.summary.technologies).toBe(2);
  });

  it('the version is the one pack.json declares, else the content hash, which follows the content', () => {
    const path = splitPack({ 'w.json': VALID }, { 'pack.json': { version: '2026.11.27' } });
    expect(check(path).summary).toMatchObject({ version: '2026.11.27', versionDeclared: true });
    rmSync(join(path, 'pack.json'));
    const before = check(path).summary.version;
    writeFileSync(join(path, 'technologies', 'w.json'), JSON.stringify({ ...VALID, Extra: { cats: [1] } }));
    expect(check(path).summary.version).not.toBe(before);
  });

  it('JSON syntax: the file and the parser position (line and column)', () => {
    const path = splitPack({
      'w.json': '{\n  "WordPress": { "cats": [1], }\n}',
      'p.json': { PHP: VALID.PHP },
    });
    const report = check(path);
    expect(report.ok).toBe(false);
    expect(errors(path)).toEqual([
      expect.stringMatching(/^error: technologies\/w\.json: invalid JSON: .*line 2, column \d+/),
    ]);
  });

  it('field types: each wrong field named by technology and path', () => {
    const path = splitPack({
      'w.json': {
        WordPress: {
          cats: '1',
          website: 42,
          saas: 'yes',
          headers: ['X-Powered-By'],
          html: [{ regex: 'wp' }],
          dom: { '.wp-block': 'exists' },
          implies: 7,
        },
      },
    });
    expect(errors(path)).toEqual([
      'error: technologies/w.json: WordPress.cats: must be a list of category ids, not a string',
      'error: technologies/w.json: WordPress.website: must be a string, not a number',
      'error: technologies/w.json: WordPress.saas: must be true or false, not a string',
      'error: technologies/w.json: WordPress.headers: must be an object of names to patterns, not an array',
      'error: technologies/w.json: WordPress.html[0]: must be a string (a pattern), not an object',
      'error: technologies/w.json: WordPress.dom[".wp-block"]: must be an object ({exists, text, attributes, properties}), not a string',
      'error: technologies/w.json: WordPress.implies: must be a technology name, not a number',
    ]);
  });

  it("regexes are compiled under the engine's rules, tags included", () => {
    const path = singlePack({
      PHP: VALID.PHP,
      WordPress: {
        cats: [1],
        scriptSrc: ['wp-includes/js/(jquery'],
        headers: { 'X-Powered-By': 'WordPress\\;confidence:high' },
        meta: { generator: 'WordPress\\;verison:\\1' },
        js: { 'wp.version': '^([\\d.]+)$\\;version:\\2' },
        dom: { 'link[href*="/wp-content/"]': { attributes: { href: '[z-a]' } } },
      },
    });
    expect(check(path).problems.map(formatProblem)).toEqual([
      expect.stringMatching(
        /^error: technologies\.json: WordPress\.scriptSrc\[0\]: invalid regular expression: .*Unterminated group/,
      ),
      'error: technologies.json: WordPress.headers.X-Powered-By: confidence "high" is not a whole number from 0 to 100',
      'error: technologies.json: WordPress.meta.generator: tag "\\;verison:\\1" is not \\;version:… or \\;confidence:…',
      'warning: technologies.json: WordPress.js["wp.version"]: version refers to group \\2; the regex has 1 group, so the engine yields no version from it',
      expect.stringMatching(
        /^error: technologies\.json: WordPress\.dom\["link\[href\*=\\"\/wp-content\/\\"\]"\]\.attributes\.href: invalid regular expression: .*Range out of order/,
      ),
    ]);
  });

  it('unknown categories and technologies named by implies, requires and excludes (in field order)', () => {
    const path = splitPack({
      'w.json': {
        WordPress: {
          ...VALID.WordPress,
          cats: [1, 99],
          requiresCategory: 42,
          implies: ['PHP', 'MySQL', 'PHPx\\;confidence:50'],
          requires: 'Apache',
          excludes: ['Drupal'],
        },
      },
      'p.json': { PHP: VALID.PHP },
    });
    expect(errors(path)).toEqual([
      'error: technologies/w.json: WordPress.cats[1]: 99 is not a category of this pack',
      'error: technologies/w.json: WordPress.implies[1]: "MySQL" is not a technology of this pack',
      'error: technologies/w.json: WordPress.implies[2]: "PHPx" is not a technology of this pack',
      'error: technologies/w.json: WordPress.requiresCategory: 42 is not a category of this pack',
      'error: technologies/w.json: WordPress.requires: "Apache" is not a technology of this pack',
      'error: technologies/w.json: WordPress.excludes[0]: "Drupal" is not a technology of this pack',
    ]);
  });

  it('categories, groups and duplicates across files are checked too', () => {
    const path = splitPack(
      { 'a.json': { PHP: VALID.PHP }, 'p.json': { PHP: VALID.PHP } },
      { 'categories.json': { '1': { name: 'CMS', groups: [9] }, '2': { name: '' }, x: { name: 'X' } } },
    );
    expect(errors(path)).toEqual([
      'error: categories.json: 1.groups[0]: 9 is not a group of this pack',
      'error: categories.json: 2.name: must be a non-empty string',
      'error: categories.json: x: a category id must be a whole number',
      'error: technologies/p.json: PHP: defined in technologies/a.json too (the later file would win)',
    ]);
  });

  it('cycles of implies are reported with their path, each once', () => {
    const path = singlePack({
      A: { cats: [1], implies: 'B' },
      B: { cats: [1], implies: ['C'] },
      C: { cats: [1], implies: ['A', 'D'] },
      D: { cats: [1], implies: 'D' },
    });
    const cycles = check(path).problems.filter((problem) => problem.field === 'implies');
    expect(cycles.map(formatProblem)).toEqual([
      expect.stringContaining('technologies.json: A.implies: cycle: A → B → C → A'),
      'warning: technologies.json: D.implies: implies itself: the engine ignores it',
    ]);
    expect(
      impliesCycles(
        new Map([
          ['X', ['Y']],
          ['Y', ['X', 'Z']],
          ['Z', ['Y']],
        ]),
      ),
    ).toEqual([
      ['X', 'Y', 'X'],
      ['Y', 'Z', 'Y'],
    ]);
  });

  it('several problems of several kinds in several files are all reported, not only the first', () => {
    const path = splitPack({
      'a.json': '{"Broken": ',
      'p.json': { PHP: { cats: [5], html: '(' } },
      'w.json': { WordPress: { ...VALID.WordPress, implies: 'Nope', website: false } },
    });
    const report = check(path);
    expect(report.ok).toBe(false);
    expect(report.summary.errors).toBe(5);
    expect(new Set(report.problems.map((problem) => problem.file))).toEqual(
      new Set(['technologies/a.json', 'technologies/p.json', 'technologies/w.json']),
    );
  });

  it('the built-in pack (the npm package data) validates with no errors; its warnings say what the engine tolerates', () => {
    const report = check(defaultFingerprintDirectory());
    expect(report.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.summary.technologies).toBeGreaterThan(5000);
    for (const warning of report.problems) {
      expect(warning.technology).toBeDefined();
      expect(warning.message).toMatch(/engine/);
    }
  });
});
