// ESLint flat config (ESLint 9). CommonJS because package.json has no "type": "module".
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const importPlugin = require('eslint-plugin-import');
const { defineConfig, globalIgnores } = require('eslint/config');

// The layers of src/, top to bottom (docs/architecture.md): a folder may import its own layer's
// folders only where a zone below allows it, and any folder of a lower layer, never one above.
// test/unit/lint/folder-graph.test.ts checks the same order on the real import graph.
const LAYERS = [
  ['./src/main.ts', './src/worker-main.ts', './src/service-runtime.ts', './src/admin'],
  ['./src/http', './src/workers'],
  ['./src/rest-facade'],
  ['./src/resolvers', './src/schema'],
  ['./src/services'],
  ['./src/redis'],
  ['./src/jobs'],
  ['./src/storage'],
  ['./src/verify', './src/subdomains', './src/geoip'],
  ['./src/fetch'],
  ['./src/detection', './src/enrichment'],
  ['./src/html'],
  ['./src/platform'],
  ['./src/plans', './src/errors'],
];
const layerZones = LAYERS.slice(1).flatMap((layer, i) =>
  layer.map((target) => ({
    target,
    from: LAYERS.slice(0, i + 1).flat(),
    message: `${target.slice(2)} sits below these layers and imports none of them (docs/architecture.md: the layers of src/).`,
  })),
);
// Packages that would drag HTTP or GraphQL into domain services ("no HTTP, no GraphQL types leaking in").
// A regular expression rather than gitignore-style groups: a group "graphql" would also match the
// project's own relative "../graphql/..." imports, which the path zones already report.
const transportPackages =
  '^(express|graphql|graphql-[^/]+|type-graphql|ws|@apollo/[^/]+|@as-integrations/[^/]+)(/.*)?$';

// Rule 4 of the layout: SQL lives in src/storage (repositories, one file per dialect where the
// dialects differ). Elsewhere in src/ a string or template literal that opens with an SQL statement
// keyword (upper case, followed by more of the statement: not the bare HTTP method 'DELETE', nor
// 'DELETE /v2/…', nor English such as 'Update …'), and any .query( or .createQueryBuilder( call,
// is reported. esquery regular expressions cannot contain a slash, hence \x2F.
const SQL_KEYWORD = '(SELECT|INSERT|UPDATE|DELETE|WITH|REPLACE|CREATE|ALTER|DROP)';
const sqlOutsideStorage =
  'SQL lives in src/storage: move this statement into a repository there (src/storage/<concern>.repository.ts, one file per dialect where they differ) and call it.';
const SQL_SELECTORS = [
  `Literal[value=/^\\s*${SQL_KEYWORD}\\s+[^\\s\\x2F]/]`,
  `TemplateLiteral[quasis.0.value.raw=/^\\s*${SQL_KEYWORD}\\s+[^\\s\\x2F]/]`,
  // `UPDATE ${table} SET …`: the keyword, then an interpolation.
  `TemplateLiteral[expressions.length>0][quasis.0.value.raw=/^\\s*${SQL_KEYWORD}\\s+$/]`,
  "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(query|createQueryBuilder)$/]",
].map((selector) => ({ selector, message: sqlOutsideStorage }));

// Node globals for the few CommonJS config files; listed by hand so we do not depend on the
// transitive `globals` package, which is not a declared dependency.
const commonJsGlobals = {
  require: 'readonly',
  module: 'writable',
  exports: 'writable',
  __dirname: 'readonly',
  __filename: 'readonly',
  process: 'readonly',
  console: 'readonly',
  Buffer: 'readonly',
  URL: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
  setInterval: 'readonly',
  clearInterval: 'readonly',
  setImmediate: 'readonly',
};

module.exports = defineConfig([
  globalIgnores(['dist/', 'node_modules/', 'data/', 'coverage/']),

  js.configs.recommended,
  tseslint.configs.recommended,

  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: commonJsGlobals },
    rules: {
      // Config files are CommonJS by necessity; require() is the only way to load plugins here.
      '@typescript-eslint/no-require-imports': 'off',
    },
  },

  {
    files: ['**/*.ts'],
    plugins: { import: importPlugin },
    settings: {
      // The project uses relative, extension-less imports and no tsconfig "paths", so the node
      // resolver with TypeScript extensions resolves every project import. no-restricted-paths
      // silently skips imports it cannot resolve, so this setting is what makes the zones bite.
      'import/resolver': { node: { extensions: ['.ts', '.d.ts', '.js', '.json'] } },
    },
    rules: {
      // Unused arguments prefixed with _ are intentional (interface conformance, callbacks).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      // Layer boundaries from design.md "Layout". Each zone: files in `target` may not import `from`.
      'import/no-restricted-paths': [
        'error',
        {
          // The rule resolves zones against process.cwd() by default, which silently disables
          // every zone when ESLint is started from a subdirectory; anchor them to the repo root.
          basePath: __dirname,
          zones: [
            ...layerZones,
            {
              target: './src/workers',
              from: ['./src/http', './src/rest-facade', './src/resolvers', './src/schema'],
              message: 'Workers use services, jobs, fetch and detection, never transports.',
            },
            {
              target: './src/schema',
              from: './src/resolvers',
              message: 'GraphQL types do not import resolvers (resolvers import types).',
            },
            {
              target: './src/storage/migrations',
              from: './src',
              except: ['./storage/migrations'],
              message:
                'Migrations import only typeorm: freeze a copy of what they need, so that their effect never changes with live code.',
            },
            {
              target: './src/detection',
              from: './src',
              // Relative to `from`: detection may import its own modules and the page's one reading
              // (src/html), nothing else of src.
              except: ['./detection', './html'],
              message:
                'src/detection is pure: it imports nothing of the project outside src/detection and src/html (types included).',
            },
            {
              target: './src/detection',
              from: ['./ormconfig.ts', './test', './bench'],
              message: 'src/detection is pure: it imports nothing of the project outside src/detection.',
            },
            {
              target: './src/enrichment',
              from: './src',
              except: ['./enrichment', './html'],
              message:
                'src/enrichment is pure: it imports nothing of the project outside src/enrichment and src/html (no I/O; callers pass plain data).',
            },
            {
              target: './src/enrichment',
              from: ['./ormconfig.ts', './test', './bench'],
              message: 'src/enrichment is pure: it imports nothing of the project outside src/enrichment.',
            },
            {
              target: './src/html',
              from: './src',
              except: ['./html'],
              message:
                'src/html (the page read once, for fetch, detection and enrichment) is pure: it imports nothing of the project outside src/html.',
            },
            {
              target: './src/html',
              from: ['./ormconfig.ts', './test', './bench'],
              message: 'src/html is pure: it imports nothing of the project outside src/html.',
            },
          ],
        },
      ],
    },
  },

  {
    files: ['src/services/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: transportPackages,
              message:
                'Services are transport-free: no HTTP or GraphQL packages (design.md). Do this in a resolver or middleware.',
            },
          ],
        },
      ],
    },
  },

  {
    files: ['src/**/*.ts'],
    ignores: ['src/storage/**'],
    rules: { 'no-restricted-syntax': ['error', ...SQL_SELECTORS] },
  },

  {
    // Tests, benchmarks and ambient declarations for untyped packages sometimes need an escape
    // hatch (fakes, JSON fixtures, third-party shapes); production code keeps any as an error.
    files: ['test/**/*.ts', 'bench/**/*.ts', '**/*.d.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'warn' },
  },
]);
