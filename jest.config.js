/** Tests run TypeScript directly through SWC (decorator metadata on) so type-graphql and TypeORM see types. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
    '/node_modules/eld/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // eld (the language detector) is published as ES modules only: the service loads it with import(),
  // which SWC turns into require() for Jest, so Jest maps the entry and compiles the package to CommonJS.
  moduleNameMapper: { '^eld/small$': '<rootDir>/node_modules/eld/src/entries/static.small.js' },
  transformIgnorePatterns: ['/node_modules/(?!eld/)'],
  setupFiles: ['reflect-metadata'],
  testSequencer: '<rootDir>/test/test-sequencer.js',
  testTimeout: 60000,
};
