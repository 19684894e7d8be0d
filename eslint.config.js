// ESLint flat config (ESLint 9). CommonJS because package.json has no "type": "module".
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const importPlugin = require('eslint-plugin-import');
const { defineConfig, globalIgnores } = require('eslint/config');

// Transport layers (design.md "Shape"): the only places that may know about HTTP or GraphQL.
// src/graphql (schema build, context, error formatting) and src/http (Express app, server) are
// the transport plumbing around resolvers and the facade, so they sit on the same side.
const transports = ['./src/resolvers', './src/schema', './src/rest-facade', './src/graphql', './src/http'];

// Packages that would drag HTTP or GraphQL into domain services ("no HTTP, no GraphQL types leaking in").
// A regular expression rather than gitignore-style groups: a group "graphql" would also match the
// project's own relative "../graphql/..." imports, which the path zones already report.
const transportPackages =
  '^(express|graphql|graphql-[^/]+|type-graphql|ws|@apollo/[^/]+|@as-integrations/[^/]+)(/.*)?$';

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
            {
              target: './src/detection',
              from: './src',
              // Relative to `from`: detection may import its own modules, nothing else of src.
              except: ['./detection'],
              message:
                'src/detection is pure: it imports nothing of the project outside src/detection (types included).',
            },
            {
              target: './src/detection',
              from: ['./ormconfig.ts', './test', './bench'],
              message: 'src/detection is pure: it imports nothing of the project outside src/detection.',
            },
            {
              target: './src/enrichment',
              from: './src',
              except: ['./enrichment'],
              message:
                'src/enrichment is pure: it imports nothing of the project outside src/enrichment (no I/O; callers pass plain data).',
            },
            {
              target: './src/enrichment',
              from: ['./ormconfig.ts', './test', './bench'],
              message: 'src/enrichment is pure: it imports nothing of the project outside src/enrichment.',
            },
            // verify/ and subdomains/ are network libraries like fetch/: they speak SMTP and DNS
            // through the outbound guard and know nothing of storage, services, jobs or transports.
            ...['./src/verify', './src/subdomains'].map((target) => ({
              target,
              from: [
                './src/services',
                './src/entities',
                './src/db',
                './src/jobs',
                './src/workers',
                ...transports,
              ],
              message: `${target.slice(2)} is a network library: it may use fetch (the outbound guard, DNS resolver and pool), errors and logger, never services, storage, jobs or transports.`,
            })),
            {
              target: './src/services',
              from: transports,
              message: 'Services never import transports (schema, resolvers, rest-facade, graphql, http).',
            },
            {
              target: './src/entities',
              from: ['./src/services', ...transports],
              message: 'Entities import no services or transports.',
            },
            {
              target: './src/jobs',
              from: transports,
              message: 'Jobs import no transports.',
            },
            {
              target: './src/workers',
              from: transports,
              message: 'Workers use services, jobs, fetch and detection, never transports.',
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
    // Tests, benchmarks and ambient declarations for untyped packages sometimes need an escape
    // hatch (fakes, JSON fixtures, third-party shapes); production code keeps any as an error.
    files: ['test/**/*.ts', 'bench/**/*.ts', '**/*.d.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'warn' },
  },
]);
