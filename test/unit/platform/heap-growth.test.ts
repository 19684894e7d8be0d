import { boundHeapGrowth } from '../../../src/platform/heap-growth';

/** The API and the workers bound V8's old-generation growth unless started with their own setting. */
describe('boundHeapGrowth', () => {
  it('leaves a --heap-growing-percent given on the command line or in NODE_OPTIONS alone', () => {
    expect(boundHeapGrowth(50, ['--heap-growing-percent=0'], '')).toBe(false);
    expect(boundHeapGrowth(50, [], '--max-semi-space-size=16 --heap_growing_percent=20')).toBe(false);
  });

  it('sets it otherwise', () => {
    expect(boundHeapGrowth(50, ['--enable-source-maps'], '--max-old-space-size=512')).toBe(true);
  });
});
