import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ESLint, type Linter } from 'eslint';

// The real project config. Loaded with require() and handed over as overrideConfig because ESLint
// otherwise loads config files through import(), which Jest's VM refuses without
// --experimental-vm-modules.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const projectConfig = require('../../../eslint.config.js');

const repoRoot = resolve(__dirname, '../../..');

/**
 * The project config with its boundary zones re-anchored at `root`: the config pins them to the
 * repository (basePath), and the stub tree needs the very same zones applied to itself.
 */
function configAnchoredAt(root: string): Linter.Config[] {
  return (projectConfig as Linter.Config[]).map((entry) => {
    const rule = entry.rules?.['import/no-restricted-paths'];
    if (!Array.isArray(rule)) return entry;
    const [severity, options] = rule as [Linter.RuleSeverity, { basePath: string }];
    expect(options.basePath).toBe(repoRoot);
    return {
      ...entry,
      rules: { ...entry.rules, 'import/no-restricted-paths': [severity, { ...options, basePath: root }] },
    };
  });
}

function linterAt(cwd: string, config: Linter.Config[] = projectConfig): ESLint {
  return new ESLint({ cwd, overrideConfigFile: true, overrideConfig: config });
}

async function boundaryErrors(eslint: ESLint, code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages
    .filter((m) => m.severity === 2)
    .filter((m) => m.ruleId === 'import/no-restricted-paths' || m.ruleId === 'no-restricted-imports')
    .map((m) => `${m.ruleId}: ${m.message}`);
}

describe('layer boundaries in the real tree', () => {
  const eslint = linterAt(repoRoot);

  it('rejects a detection module importing project code outside src/detection', async () => {
    const errors = await boundaryErrors(
      eslint,
      "import { AppError } from '../errors';\nexport const e = AppError;\n",
      join(repoRoot, 'src/detection/x.ts'),
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/import\/no-restricted-paths.*src\/detection is pure/);
  });

  it('allows a detection module importing its own types', async () => {
    const errors = await boundaryErrors(
      eslint,
      "import type { DetectionInput } from './detection-input';\nexport type X = DetectionInput;\n",
      join(repoRoot, 'src/detection/x.ts'),
    );
    expect(errors).toEqual([]);
  });

  it('rejects an enrichment module importing project code outside src/enrichment (fetch included)', async () => {
    for (const importPath of ['../fetch', '../errors', '../detection']) {
      const errors = await boundaryErrors(
        eslint,
        `import * as m from '${importPath}';\nexport const x = m;\n`,
        join(repoRoot, 'src/enrichment/x.ts'),
      );
      expect(errors).toContainEqual(
        expect.stringMatching(/import\/no-restricted-paths.*src\/enrichment is pure/),
      );
    }
  });

  it('allows enrichment modules to import each other, and fetch and services to import enrichment', async () => {
    const own = await boundaryErrors(
      eslint,
      "import { LIMITS } from './limits';\nexport const x = LIMITS;\n",
      join(repoRoot, 'src/enrichment/x.ts'),
    );
    expect(own).toEqual([]);
    for (const [file, from] of [
      ['src/fetch/x.ts', '../enrichment'],
      ['src/services/analysis/x.service.ts', '../../enrichment'],
    ]) {
      const errors = await boundaryErrors(
        eslint,
        `import { enrichSite } from '${from}';\nexport const x = enrichSite;\n`,
        join(repoRoot, file),
      );
      expect(errors).toEqual([]);
    }
  });

  it('rejects HTTP and GraphQL packages in services, allows the error hierarchy', async () => {
    const file = join(repoRoot, 'src/services/platform/x.service.ts');
    for (const pkg of ['express', '@apollo/server', 'graphql', 'type-graphql']) {
      const errors = await boundaryErrors(
        eslint,
        `import * as m from '${pkg}';\nexport const x = m;\n`,
        file,
      );
      expect(errors).toEqual([expect.stringMatching(/^no-restricted-imports/)]);
    }
    const allowed = await boundaryErrors(
      eslint,
      "import { AppError } from '../../errors';\nexport const e = AppError;\n",
      file,
    );
    expect(allowed).toEqual([]);
  });
});

/**
 * The other zones need target files that may not exist in the tree yet (an import the resolver
 * cannot resolve is skipped by the rule), so they run against a throw-away tree with one stub per
 * layer and the same zones anchored there.
 */
describe('layer boundaries in a stub tree', () => {
  let root: string;
  let eslint: ESLint;
  const stubs = [
    'src/resolvers/account.resolver.ts',
    'src/resolvers/context.ts',
    'src/schema/account.type.ts',
    'src/rest-facade/route-table.ts',
    'src/http/app.ts',
    'src/services/platform/account.service.ts',
    'src/storage/entities/account.entity.ts',
    'src/storage/database.ts',
    'src/storage/migrations/1-first.ts',
    'src/jobs/job-queue.ts',
    'src/redis/redis-connection.ts',
    'src/platform/config.ts',
    // The resolver needs the importing file's directory to exist.
    'src/workers/detect.worker.ts',
    'src/fetch/http-client.ts',
    'src/detection/matcher.ts',
    'src/errors/index.ts',
    'src/verify/index.ts',
    'src/subdomains/index.ts',
  ];

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'lint-zones-'));
    for (const stub of stubs) {
      mkdirSync(dirname(join(root, stub)), { recursive: true });
      writeFileSync(join(root, stub), 'export const stub = 1;\n');
    }
    eslint = linterAt(root, configAnchoredAt(root));
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const cases: Array<[file: string, importPath: string, violates: boolean]> = [
    ['src/services/x.service.ts', '../resolvers/account.resolver', true],
    ['src/services/x.service.ts', '../resolvers/context', true],
    ['src/services/x.service.ts', '../schema/account.type', true],
    ['src/services/x.service.ts', '../rest-facade/route-table', true],
    ['src/services/x.service.ts', '../http/app', true],
    ['src/services/x.service.ts', '../workers/detect.worker', true],
    ['src/services/x.service.ts', '../storage/entities/account.entity', false],
    ['src/services/x.service.ts', '../redis/redis-connection', false],
    ['src/storage/x.ts', '../services/platform/account.service', true],
    ['src/storage/x.ts', '../jobs/job-queue', true],
    ['src/storage/x.ts', '../redis/redis-connection', true],
    ['src/storage/x.ts', '../platform/config', false],
    ['src/storage/entities/x.entity.ts', '../../services/platform/account.service', true],
    ['src/storage/entities/x.entity.ts', '../../schema/account.type', true],
    ['src/storage/migrations/2-second.ts', '../entities/account.entity', true],
    ['src/storage/migrations/2-second.ts', '../../platform/config', true],
    ['src/storage/migrations/2-second.ts', './1-first', false],
    ['src/platform/x.ts', '../storage/database', true],
    ['src/platform/x.ts', '../services/platform/account.service', true],
    ['src/redis/x.ts', '../services/platform/account.service', true],
    ['src/redis/x.ts', '../jobs/job-queue', false],
    ['src/jobs/x.ts', '../rest-facade/route-table', true],
    ['src/jobs/x.ts', '../services/platform/account.service', true],
    ['src/jobs/x.ts', '../storage/database', false],
    ['src/workers/x.worker.ts', '../resolvers/account.resolver', true],
    ['src/workers/x.worker.ts', '../schema/account.type', true],
    ['src/workers/x.worker.ts', '../http/app', true],
    ['src/workers/x.worker.ts', '../services/platform/account.service', false],
    ['src/workers/x.worker.ts', '../jobs/job-queue', false],
    ['src/workers/x.worker.ts', '../fetch/http-client', false],
    ['src/workers/x.worker.ts', '../detection/matcher', false],
    ['src/schema/x.type.ts', '../resolvers/account.resolver', true],
    ['src/resolvers/x.resolver.ts', '../rest-facade/route-table', true],
    ['src/resolvers/x.resolver.ts', '../http/app', true],
    ['src/resolvers/x.resolver.ts', '../services/platform/account.service', false],
    ['src/rest-facade/x.ts', '../http/app', true],
    ['src/rest-facade/x.ts', '../resolvers/account.resolver', false],
    ['src/detection/x.ts', '../fetch/http-client', true],
    ['src/detection/x.ts', './matcher', false],
    ['src/verify/x.ts', '../services/platform/account.service', true],
    ['src/verify/x.ts', '../storage/entities/account.entity', true],
    ['src/verify/x.ts', '../resolvers/context', true],
    ['src/verify/x.ts', '../fetch/http-client', false],
    ['src/verify/x.ts', '../errors/index', false],
    ['src/subdomains/x.ts', '../services/platform/account.service', true],
    ['src/subdomains/x.ts', '../jobs/job-queue', true],
    ['src/subdomains/x.ts', '../fetch/http-client', false],
    ['src/fetch/x.ts', '../verify/index', true],
  ];

  it.each(cases)('%s importing %s violates: %s', async (file, importPath, violates) => {
    const errors = await boundaryErrors(
      eslint,
      `import { stub } from '${importPath}';\nexport const x = stub;\n`,
      join(root, file),
    );
    expect(errors.length > 0).toBe(violates);
  });
});

/** Rule 4 of the layout: SQL lives in src/storage (no-restricted-syntax on SQL literals and query calls). */
describe('SQL outside src/storage', () => {
  const eslint = linterAt(repoRoot);

  async function sqlErrors(code: string, file: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: join(repoRoot, file) });
    return result.messages
      .filter((m) => m.severity === 2 && m.ruleId === 'no-restricted-syntax')
      .map((m) => m.message);
  }

  it('reports a services file running SQL', async () => {
    const errors = await sqlErrors(
      "declare const db: { query(sql: string): Promise<unknown> };\nexport const one = db.query('SELECT 1');\n",
      'src/services/platform/x.service.ts',
    );
    // The literal and the .query( call.
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/SQL lives in src\/storage/);
  });

  it('does not report the same code in src/storage', async () => {
    const errors = await sqlErrors(
      "declare const db: { query(sql: string): Promise<unknown> };\nexport const one = db.query('SELECT 1');\n",
      'src/storage/x.repository.ts',
    );
    expect(errors).toEqual([]);
  });

  it.each([
    ['a statement in a template', 'export const s = `\n  SELECT id FROM jobs`;\n'],
    [
      'a statement opening with an interpolation-free keyword',
      "export const s = 'DELETE FROM jobs WHERE id = ?';\n",
    ],
    [
      'a keyword followed by an interpolation',
      'declare const t: string;\nexport const s = `UPDATE ${t} SET a = 1`;\n',
    ],
    [
      'a query builder',
      'declare const m: { createQueryBuilder(): unknown };\nexport const q = m.createQueryBuilder();\n',
    ],
  ])('reports %s in resolvers, workers, http and jobs', async (_name, code) => {
    for (const file of [
      'src/resolvers/x.resolver.ts',
      'src/workers/x.worker.ts',
      'src/http/x.ts',
      'src/jobs/x.ts',
    ])
      expect(await sqlErrors(code, file)).toHaveLength(1);
  });

  it('leaves English, HTTP methods and routes alone', async () => {
    const code = [
      "export const a = 'Update your plan to create lists';",
      "export const b = 'DELETE';",
      "export const c = 'DELETE /v2/lists/{id}: deletes the list';",
      "export const d = ['GET', 'POST', 'DELETE'];",
      'export const e = `Select ${a} or create one`;',
      "export const f = 'With a key, UPDATE nothing';",
      '',
    ].join('\n');
    expect(await sqlErrors(code, 'src/services/platform/x.service.ts')).toEqual([]);
  });
});
