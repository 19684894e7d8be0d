import { cachedLookup } from '../../../src/fetch/lookup-cache';

/** Issue 35: a crawl asked the DNS servers the same A/AAAA questions for every connection. */
describe('cachedLookup', () => {
  let now = 0;
  let asked: string[] = [];
  const answers = new Map<string, string[]>([['shop.test', ['127.1.0.1']]]);
  const lookup = cachedLookup(
    async (name) => {
      asked.push(name);
      return answers.get(name) ?? [];
    },
    { ttlMs: 30_000, maxNames: 2, now: () => now },
  );
  beforeEach(() => {
    now = 0;
    asked = [];
  });

  it('asks once for a name looked up again within the time to live, and again after it', async () => {
    expect(await lookup('shop.test')).toEqual(['127.1.0.1']);
    expect(await lookup('SHOP.test')).toEqual(['127.1.0.1']);
    now = 29_999;
    await lookup('shop.test');
    expect(asked).toEqual(['shop.test']);
    now = 30_000;
    await lookup('shop.test');
    expect(asked).toEqual(['shop.test', 'shop.test']);
  });

  it('shares one question between lookups of a name in flight, and keeps no answer', async () => {
    now = 100_000;
    const [a, b] = await Promise.all([lookup('none.test'), lookup('none.test')]);
    expect(a).toEqual([]);
    expect(b).toEqual([]);
    expect(asked).toEqual(['none.test']);
  });

  it('keeps at most maxNames names, dropping the oldest', async () => {
    now = 200_000;
    await lookup('a.test');
    await lookup('b.test');
    await lookup('c.test');
    await lookup('c.test');
    await lookup('b.test');
    await lookup('a.test');
    expect(asked).toEqual(['a.test', 'b.test', 'c.test', 'a.test']);
  });

  it('asks again after a failed lookup', async () => {
    let fail = true;
    const flaky = cachedLookup(
      async () => {
        if (fail) throw new Error('SERVFAIL');
        return ['127.1.0.2'];
      },
      { ttlMs: 30_000, maxNames: 10, now: () => 0 },
    );
    await expect(flaky('flaky.test')).rejects.toThrow('SERVFAIL');
    fail = false;
    expect(await flaky('flaky.test')).toEqual(['127.1.0.2']);
  });
});
