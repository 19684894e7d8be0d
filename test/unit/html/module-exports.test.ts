import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A value re-exported from another module (`export { x } from './y'`, or `export { x }` of an
 * import) compiles to a getter, and a getter defined over the export tsc first declares turns the
 * module's exports object into a dictionary: every reader's look-up of any export of that module
 * (TOKEN in the markup walks, the light document's constants in its own reading) becomes a hash
 * look-up. The html and fetch modules read in the parse's hot loops export values of their own only.
 */
describe('exports of the modules the reading uses', () => {
  const ROOT = join(__dirname, '../../../src');
  const files = [
    ...readdirSync(join(ROOT, 'html')).map((file) => join('html', file)),
    'fetch/html-extractor.ts',
    'fetch/link-resolver.ts',
  ].filter((file) => file.endsWith('.ts'));

  it('re-export no value (type re-exports compile to nothing)', () => {
    const reexports: string[] = [];
    for (const file of files) {
      const source = readFileSync(join(ROOT, file), 'utf8');
      for (const match of source.matchAll(/^export\s+(?!type\b)\{[^}]*\}(\s*from\b)?/gm))
        reexports.push(`${file}: ${match[0].replace(/\s+/g, ' ')}`);
      for (const match of source.matchAll(/^export\s+\*/gm)) reexports.push(`${file}: ${match[0]}`);
    }
    expect(files.length).toBeGreaterThan(5);
    expect(reexports).toEqual([]);
  });
});
