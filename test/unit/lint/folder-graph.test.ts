import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The folders of src/ import each other in one direction only: the graph of imports between
 * top-level folders (src/main.ts and its siblings count as one, the entry points) has no loop.
 * ESLint's zones (eslint.config.js) say which direction is down; this test sees every import the
 * zones might miss (a new folder no zone names yet, an import ESLint cannot resolve).
 */
const root = resolve(__dirname, '../../..');
const src = join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function folderOf(file: string): string {
  const parts = relative(src, file).split(sep);
  return parts.length === 1 ? '(entry points)' : parts[0];
}

function resolveImport(from: string, specifier: string): string | null {
  const target = resolve(dirname(from), specifier);
  for (const candidate of [`${target}.ts`, join(target, 'index.ts'), target]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** folder → folders it imports, with one example import each. */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  const importPattern = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const file of sourceFiles(src)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(importPattern)) {
      const target = resolveImport(file, match[1]);
      if (!target || !target.startsWith(src + sep)) continue;
      const [a, b] = [folderOf(file), folderOf(target)];
      if (a === b) continue;
      if (!graph.has(a)) graph.set(a, new Map());
      graph.get(a)!.set(b, `${relative(root, file)} imports ${match[1]}`);
    }
  }
  return graph;
}

/** The loops of a directed graph (strongly connected components of more than one node). */
function loops(graph: Map<string, Map<string, string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the folder import graph of src/', () => {
  it('has no loop', () => {
    const graph = folderGraph();
    expect(graph.size).toBeGreaterThan(10);
    const described = loops(graph).map((component) =>
      component
        .flatMap((a) =>
          [...(graph.get(a) ?? [])]
            .filter(([b]) => component.includes(b))
            .map(([b, why]) => `${a} → ${b}: ${why}`),
        )
        .join('\n'),
    );
    expect(described).toEqual([]);
  });

  it('finds a loop where there is one', () => {
    const graph = new Map([
      ['a', new Map([['b', 'x']])],
      ['b', new Map([['c', 'y']])],
      ['c', new Map([['a', 'z']])],
      ['d', new Map([['a', 'w']])],
    ]);
    expect(loops(graph)).toEqual([['a', 'b', 'c']]);
  });
});
