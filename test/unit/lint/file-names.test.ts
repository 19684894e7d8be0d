import { readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * One file-suffix convention across src/: `<name>.<role>.ts` marks the few roles a reader looks
 * for by name, each in the directory that holds that role; every other file is plain kebab-case
 * `<name>.ts`. A dotted suffix outside this table (`.checker.ts`, `.client.ts`, `.guard.ts`...)
 * is a second convention creeping in.
 */
const ROLE_DIRECTORIES: Record<string, string[]> = {
  entity: ['src/storage/entities'],
  repository: ['src/storage'],
  // One dialect's statements where SQLite and MySQL/MariaDB differ (lead-list-calculator.sqlite.ts).
  sqlite: ['src/storage'],
  mysql: ['src/storage'],
  type: ['src/schema'],
  mapper: ['src/schema'],
  resolver: ['src/resolvers'],
  routes: ['src/rest-facade/routes', 'src/http'],
  service: ['src/services', 'src/verify'],
  contract: ['src/services'],
  worker: ['src/workers'],
  extractor: ['src/enrichment'],
  command: ['src/admin'],
  d: ['src'], // ambient declarations (.d.ts) for untyped packages
};

const root = path.resolve(__dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

function misnamed(file: string): string | null {
  const name = path.basename(file, '.ts');
  if (!/^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z]+(-[a-z]+)*)?$/.test(name)) return `${file}: not kebab-case`;
  const role = name.includes('.') ? name.slice(name.indexOf('.') + 1) : null;
  if (role === null) return null;
  const directories = ROLE_DIRECTORIES[role];
  if (!directories) return `${file}: ".${role}.ts" is not one of the roles`;
  const dir = path.dirname(file);
  if (!directories.some((allowed) => dir === allowed || dir.startsWith(`${allowed}/`)))
    return `${file}: ".${role}.ts" files live in ${directories.join(' or ')}`;
  return null;
}

describe('file names in src/', () => {
  it('follow the one suffix convention', () => {
    const files = sourceFiles('src').filter((file) => !file.startsWith('src/storage/migrations/'));
    expect(files.length).toBeGreaterThan(100);
    expect(files.map(misnamed).filter((problem) => problem !== null)).toEqual([]);
  });

  it('reports a dotted suffix outside the table, and a role outside its directory', () => {
    expect(misnamed('src/verify/mailbox.prober.ts')).toMatch(/not one of the roles/);
    expect(misnamed('src/verify/mail-exchange.resolver.ts')).toMatch(/live in src\/resolvers/);
    expect(misnamed('src/verify/mailbox-prober.ts')).toBeNull();
  });
});
