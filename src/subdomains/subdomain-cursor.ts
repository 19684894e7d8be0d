import { ValidationError } from '../errors';
import { normaliseHostname } from './subdomain-name-rules';

/*
 * Keyset pagination over one domain's names, ordered by name ascending (binary/ASCII order: the
 * column must use a binary collation, or the database and this code would disagree on what comes
 * "after"). A page is "names > cursor ORDER BY name LIMIT n" and the cursor is the last name
 * returned. Because a name is its own sort key and never changes, a name stored while a client
 * walks the pages either sorts before the cursor (the walk has passed that point; the name is not
 * repeated and nothing shifts, unlike OFFSET paging) or after it (the walk will reach it). So a
 * walk never returns a name twice and never skips a name that existed when the walk started.
 */

/** Opaque `moreAfter` value for the last name of a page. */
export function encodeSubdomainCursor(lastName: string): string {
  return Buffer.from(lastName, 'utf8').toString('base64url');
}

/**
 * The name a client's `after` value stands for.
 * @throws ValidationError('after') when the value was not produced by encodeSubdomainCursor.
 */
export function decodeSubdomainCursor(after: string): string {
  const invalid = () =>
    new ValidationError('after', 'after: not a moreAfter value returned by this endpoint');
  if (!/^[A-Za-z0-9_-]+$/.test(after)) throw invalid();
  const name = Buffer.from(after, 'base64url').toString('utf8');
  if (encodeSubdomainCursor(name) !== after || normaliseHostname(name) !== name) throw invalid();
  return name;
}

/** Same order as the database's binary collation: plain code-unit comparison. */
export function compareSubdomainNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Cuts one page from up to `limit + 1` names read in ascending order after the cursor: the extra
 * row only tells whether more exist, so `moreAfter` appears exactly when there is a next page.
 */
export function pageOfSubdomainNames(
  rows: readonly string[],
  limit: number,
): { names: string[]; moreAfter?: string } {
  const names = rows.slice(0, limit);
  return rows.length > limit
    ? { names, moreAfter: encodeSubdomainCursor(names[names.length - 1]) }
    : { names };
}
