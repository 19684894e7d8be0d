import { VersionedCache } from '../../../src/services/platform/versioned-cache';

describe('VersionedCache', () => {
  it('loads again when the version changed, and keeps the value while it holds', async () => {
    const cache = new VersionedCache<string, number>(10);
    let loads = 0;
    const load = () => Promise.resolve(++loads);
    expect(await cache.get('a', 'v1', load)).toBe(1);
    expect(await cache.get('a', 'v1', load)).toBe(1);
    expect(await cache.get('a', 'v2', load)).toBe(2);
    expect(loads).toBe(2);
  });

  it('evicts the least recently used key beyond its size', async () => {
    const cache = new VersionedCache<string, string>(2);
    const loaded: string[] = [];
    const load = (key: string) => () => {
      loaded.push(key);
      return Promise.resolve(key);
    };
    await cache.get('a', 'v', load('a'));
    await cache.get('b', 'v', load('b'));
    await cache.get('a', 'v', load('a')); // a is now the most recently used
    await cache.get('c', 'v', load('c')); // evicts b
    await cache.get('a', 'v', load('a'));
    await cache.get('b', 'v', load('b'));
    expect(loaded).toEqual(['a', 'b', 'c', 'b']);
  });
});
