import { VerificationResultCache } from '../../../src/verify/verification-result-cache';

describe('VerificationResultCache', () => {
  let now = 0;
  const clock = () => now;

  beforeEach(() => {
    now = 1_000_000;
  });

  it('returns a value until its time to live has passed', () => {
    const cache = new VerificationResultCache<string>({ maxEntries: 10, now: clock });
    cache.set('a', 'A', 1000);
    now += 999;
    expect(cache.get('a')).toBe('A');
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('stores nothing for a time to live of 0', () => {
    const cache = new VerificationResultCache<string>({ maxEntries: 10, now: clock });
    cache.set('a', 'A', 0);
    expect(cache.get('a')).toBeUndefined();
  });

  it('evicts the least recently used entry beyond its size', () => {
    const cache = new VerificationResultCache<string>({ maxEntries: 2, now: clock });
    cache.set('a', 'A', 1000);
    cache.set('b', 'B', 1000);
    expect(cache.get('a')).toBe('A');
    cache.set('c', 'C', 1000);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('A');
    expect(cache.get('c')).toBe('C');
  });

  it('replaces the value and time to live of a key set again', () => {
    const cache = new VerificationResultCache<string>({ maxEntries: 2, now: clock });
    cache.set('a', 'old', 10_000);
    cache.set('a', 'new', 100);
    expect(cache.get('a')).toBe('new');
    now += 100;
    expect(cache.get('a')).toBeUndefined();
  });
});
