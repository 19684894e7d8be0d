import { RouteMatcher } from '../../../src/rest-facade/route-matcher';
import type { RestRoute } from '../../../src/rest-facade/route';

const route = (method: RestRoute['method'], path: string) => ({ method, path }) as RestRoute;

describe('RouteMatcher', () => {
  const lists = route('GET', '/v2/lists/{id}');
  const usage = route('GET', '/v2/lists/usage');
  const remove = route('DELETE', '/v2/lists/{id}');
  const matcher = new RouteMatcher([lists, usage, remove]);

  it('matches literals before parameters, by method, with or without the slash', () => {
    expect(matcher.match('GET', '/v2/lists/usage/')).toEqual({ kind: 'match', route: usage, pathParams: {} });
    expect(matcher.match('GET', '/v2/lists/abc')).toEqual({
      kind: 'match',
      route: lists,
      pathParams: { id: 'abc' },
    });
    expect(matcher.match('HEAD', '/v2/lists/abc')).toMatchObject({ kind: 'match', route: lists });
    expect(matcher.match('DELETE', '/v2/lists/abc')).toMatchObject({ kind: 'match', route: remove });
    expect(matcher.match('POST', '/v2/lists/abc')).toEqual({
      kind: 'wrong-method',
      allowed: ['GET', 'DELETE'],
    });
    expect(matcher.match('GET', '/v2/nothing')).toEqual({ kind: 'none' });
  });

  it('remembers an answer by method and path, frozen, so that sharing it is safe', () => {
    const first = matcher.match('GET', '/v2/lists/xyz');
    expect(matcher.match('GET', '/v2/lists/xyz')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    if (first.kind !== 'match') throw new Error('expected a match');
    expect(() => {
      (first.pathParams as Record<string, string>).id = 'other';
    }).toThrow(TypeError);
    expect(matcher.match('DELETE', '/v2/lists/xyz')).toMatchObject({
      route: remove,
      pathParams: { id: 'xyz' },
    });
    // Many different paths (ids): answers stay right past the bound.
    for (let i = 0; i < 2_500; i++) {
      expect(matcher.match('GET', `/v2/lists/id-${i}`)).toMatchObject({ pathParams: { id: `id-${i}` } });
    }
    const long = `/v2/lists/${'x'.repeat(1_000)}`;
    expect(matcher.match('GET', long)).toMatchObject({ route: lists, pathParams: { id: 'x'.repeat(1_000) } });
  });
});
