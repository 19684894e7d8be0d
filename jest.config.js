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
  },
  setupFiles: ['reflect-metadata'],
  testSequencer: '<rootDir>/test/test-sequencer.js',
  testTimeout: 60000,
};
