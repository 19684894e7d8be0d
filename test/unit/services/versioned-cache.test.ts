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

  it('keeps values within a byte budget, the least recently used out first', async () => {
    const cache = new VersionedCache<string, string>({ maxBytes: 10, weigh: (value) => value.length });
    const loaded: string[] = [];
    const load = (value: string) => () => {
      loaded.push(value);
      return Promise.resolve(value);
    };
    await cache.get('a', 'v', load('aaaa'));
    await cache.get('b', 'v', load('bbbb'));
    await cache.get('a', 'v', load('aaaa')); // a is now the most recently used
    await cache.get('c', 'v', load('cccccc')); // 14 bytes with b: b goes
    expect(cache.size).toBe(2);
    expect(cache.heldBytes).toBe(10);
    await cache.get('a', 'v', load('aaaa'));
    await cache.get('b', 'v', load('bbbb')); // c goes
    await cache.get('a', 'v', load('aaaa'));
    expect(loaded).toEqual(['aaaa', 'bbbb', 'cccccc', 'bbbb']);
  });

  it('answers a value larger than the whole budget without keeping it', async () => {
    const cache = new VersionedCache<string, string>({ maxBytes: 4, weigh: (value) => value.length });
    await cache.get('a', 'v', () => Promise.resolve('aa'));
    expect(await cache.get('big', 'v', () => Promise.resolve('bigger'))).toBe('bigger');
    expect(cache.size).toBe(1);
    expect(cache.heldBytes).toBe(2);
  });

  it('counts a reloaded value at its new size', async () => {
    const cache = new VersionedCache<string, string>({ maxBytes: 100, weigh: (value) => value.length });
    await cache.get('a', 'v1', () => Promise.resolve('aa'));
    await cache.get('a', 'v2', () => Promise.resolve('aaaaa'));
    expect(cache.heldBytes).toBe(5);
  });
});
