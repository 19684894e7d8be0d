import { ValidationError } from '../../../src/errors';
import {
  compareSubdomainNames,
  decodeSubdomainCursor,
  encodeSubdomainCursor,
  pageOfSubdomainNames,
} from '../../../src/subdomains/subdomain-cursor';

describe('subdomain cursors', () => {
  it('round-trips a name through an opaque base64url value', () => {
    const cursor = encodeSubdomainCursor('api.example.com');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('example');
    expect(decodeSubdomainCursor(cursor)).toBe('api.example.com');
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc$def'],
    ['padded base64', `${Buffer.from('a.example.com').toString('base64')}=`],
    ['not a hostname', Buffer.from('not a name').toString('base64url')],
    ['non-canonical encoding', `${encodeSubdomainCursor('a.example.com')}A`],
  ])('rejects a cursor that is %s', (_, after) => {
    expect(() => decodeSubdomainCursor(after)).toThrow(ValidationError);
    try {
      decodeSubdomainCursor(after);
    } catch (error) {
      expect((error as ValidationError).parameter).toBe('after');
    }
  });

  it('cuts a page and offers moreAfter only when a further row exists', () => {
    expect(pageOfSubdomainNames(['a', 'b', 'c'], 2)).toEqual({
      names: ['a', 'b'],
      moreAfter: encodeSubdomainCursor('b'),
    });
    expect(pageOfSubdomainNames(['a', 'b'], 2)).toEqual({ names: ['a', 'b'] });
  });

  it('walks every name exactly once while names are added during the walk', () => {
    // An in-memory stand-in for "WHERE name > :after ORDER BY name LIMIT :limit + 1".
    const stored = new Set([
      'www.example.com',
      'api.example.com',
      'mail.example.com',
      'dev.example.com',
      'cdn.example.com',
    ]);
    const readPage = (after: string | undefined, limit: number) =>
      [...stored]
        .filter((name) => after === undefined || compareSubdomainNames(name, after) > 0)
        .sort(compareSubdomainNames)
        .slice(0, limit + 1);
    const existingAtStart = new Set(stored);
    const arriving = ['a.example.com', 'zz.example.com', 'b-1.example.com', 'm.example.com', 'x.example.com'];

    const walked: string[] = [];
    let after: string | undefined;
    do {
      const page = pageOfSubdomainNames(readPage(after, 2), 2);
      walked.push(...page.names);
      after = page.moreAfter === undefined ? undefined : decodeSubdomainCursor(page.moreAfter);
      const next = arriving.shift();
      if (next) stored.add(next);
    } while (after !== undefined);

    expect(new Set(walked).size).toBe(walked.length);
    for (const name of existingAtStart) expect(walked).toContain(name);
    expect(walked).toEqual([...walked].sort(compareSubdomainNames));
  });

  it('orders names by code unit, as a binary collation does', () => {
    expect(
      ['b.example.com', 'a-b.example.com', 'a.example.com', 'a0.example.com'].sort(compareSubdomainNames),
    ).toEqual(['a-b.example.com', 'a.example.com', 'a0.example.com', 'b.example.com']);
  });
});
