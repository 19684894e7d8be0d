import { timeOrderedUuid } from '../../../src/services/platform/time-ordered-id';

describe('timeOrderedUuid', () => {
  it('is a version 7, RFC 4122 variant UUID', () => {
    expect(timeOrderedUuid()).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('sorts in creation order, also for ids made in the same millisecond', () => {
    const at = Date.now() + 1000;
    const ids = Array.from({ length: 5000 }, () => timeOrderedUuid(at));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('starts with the creation time', () => {
    const at = Date.UTC(2030, 0, 1);
    const id = timeOrderedUuid(at);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });
});
