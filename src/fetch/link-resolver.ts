/**
 * Resolves the URL values of a page against its base as `new URL(value.trim(), base)` does, keeping
 * http(s) targets only and dropping the fragment, for the fetcher's links and resources.
 *
 * The common forms are resolved without a URL object when the base is http(s): a path from the root
 * ("/shop/cart?id=3"), a path relative to the base's directory ("img/a.png", "./img/a.png",
 * "../../img/a.png"), a query ("?page=2"), a
 * fragment alone ("#top"), and an http(s) URL or "//" reference with a plain lowercase host, when
 * every character after the host is one the URL parser keeps as written (letters, digits,
 * - . _ ~ / ! $ & ( ) * + , ; = : @ ?) and no path segment is "." or "..". Anything else (dot
 * segments, ports, user info, percent signs, IDN, numeric hosts, any other character, a ":" that
 * may end a scheme) goes through `new URL`.
 */
export class LinkResolver {
  /** A base that is no URL: `new URL` throws for every value, even an absolute one. */
  private readonly valid: boolean;
  /** The parts of an http(s) base: "https:", "https://example.com", + its path, + its directory, its href less the fragment. */
  private readonly scheme: string | undefined;
  private readonly root: string = '';
  private readonly path: string = '';
  private readonly directory: string = '';
  private readonly document: string = '';

  constructor(private readonly base: string) {
    let url: URL | undefined;
    try {
      url = new URL(base);
    } catch {
      url = undefined;
    }
    this.valid = url !== undefined;
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      this.scheme = undefined;
      return;
    }
    this.scheme = url.protocol;
    this.root = new URL('/', url).href.slice(0, -1);
    this.path = this.root + url.pathname;
    this.directory = this.path.slice(0, this.path.lastIndexOf('/') + 1);
    // The href without its fragment ("#" is escaped anywhere else); "?" alone is a query too.
    const href = url.href;
    const fragment = href.indexOf('#');
    this.document = fragment < 0 ? href : href.slice(0, fragment);
  }

  resolve(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    const trimmed = trimmedOf(value);
    if (!trimmed || !this.valid || mayBeNotFetched(trimmed)) return undefined;
    const hash = trimmed.indexOf('#');
    const target = hash < 0 ? trimmed : trimmed.slice(0, hash);
    if (target.startsWith('http://') || target.startsWith('https://'))
      return this.absolute(target, target.indexOf('//') + 2) ?? this.parsed(trimmed, hash >= 0);
    if (this.scheme === undefined) return this.parsed(trimmed, hash >= 0);
    const first = target.charCodeAt(0);
    if (first === 47 /* / */) {
      if (target.charCodeAt(1) === 47)
        return this.absolute(this.scheme + target, this.scheme.length + 2) ?? this.parsed(trimmed, hash >= 0);
      if (AS_WRITTEN.test(target) && !DOT_SEGMENT.test(target)) return this.root + target;
    } else if (target === '') {
      // A fragment alone: the base less its fragment (and less an empty query, as the parser does).
      if (!this.document.endsWith('?')) return this.document;
    } else if (first === 63 /* ? */) {
      if (AS_WRITTEN.test(target)) return this.path + target;
    } else {
      // A path relative to the base's directory, after any leading "./" and "../" segments (each
      // "../" goes one directory up, never above the root).
      let directory = this.directory;
      let at = 0;
      for (;;) {
        if (target.startsWith('./', at)) {
          at += 2;
        } else if (target.startsWith('../', at)) {
          at += 3;
          if (directory.length > this.root.length + 1)
            directory = directory.slice(0, directory.lastIndexOf('/', directory.length - 2) + 1);
        } else {
          break;
        }
      }
      const rest = at === 0 ? target : target.slice(at);
      if (
        AS_WRITTEN.test(rest) &&
        !DOT_SEGMENT.test(rest) &&
        !LEADING_DOT_SEGMENT.test(rest) &&
        (at > 0 || !MAY_BE_SCHEME.test(rest)) // after "./" a ":" is in the path
      )
        return directory + rest;
    }
    return this.parsed(trimmed, hash >= 0);
  }

  /** An absolute URL (or a "//" reference with the base's scheme) whose host starts at `hostStart`. */
  private absolute(target: string, hostStart: number): string | undefined {
    PLAIN_HOST.lastIndex = hostStart;
    if (!PLAIN_HOST.test(target)) return undefined;
    const hostEnd = PLAIN_HOST.lastIndex;
    const dashes = target.indexOf('--', hostStart);
    if (dashes >= 0 && dashes < hostEnd) return undefined;
    REST_AS_WRITTEN.lastIndex = hostEnd;
    if (!REST_AS_WRITTEN.test(target)) return undefined;
    DOT_SEGMENT_AFTER.lastIndex = hostEnd;
    if (DOT_SEGMENT_AFTER.test(target)) return undefined;
    // The parser gives an empty path as "/": the target itself when its path is there.
    if (target.charCodeAt(hostEnd) === 47) return target;
    return `${target.slice(0, hostEnd)}/${target.slice(hostEnd)}`;
  }

  private parsed(trimmed: string, hasHash: boolean): string | undefined {
    try {
      const url = new URL(trimmed, this.base);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
      // Only a value with a "#" can give a fragment (a base's is never kept): no setter otherwise.
      if (hasHash) url.hash = '';
      return url.href;
    } catch {
      return undefined;
    }
  }
}

const NOT_FETCHED = /^(javascript|mailto|tel|data|about|blob):/i;

/**
 * Whether `value` may be of a scheme never fetched (NOT_FETCHED's test, asked only when its first
 * letter is one of theirs: most values start with "h", "/", "#" or a path, and skip the pattern).
 */
function mayBeNotFetched(value: string): boolean {
  const first = value.charCodeAt(0) | 32;
  return (
    (first === 106 /* j */ ||
      first === 109 /* m */ ||
      first === 116 /* t */ ||
      first === 100 /* d */ ||
      first === 97 /* a */ ||
      first === 98) /* b */ &&
    NOT_FETCHED.test(value)
  );
}

/**
 * value.trim(), without the call when the value starts and ends with a printable ASCII character
 * (every other character trim removes is a control, a space or beyond ASCII).
 */
function trimmedOf(value: string): string {
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  return first > 32 && first < 127 && last > 32 && last < 127 ? value : value.trim();
}

/** Characters the URL parser keeps as written in a path and a special URL's query. */
const AS_WRITTEN = /^[A-Za-z0-9\-._~/!$&()*+,;=:@?]*$/;
/** The same from lastIndex to the end (the part of an absolute URL after its host). */
const REST_AS_WRITTEN = /[A-Za-z0-9\-._~/!$&()*+,;=:@?]*$/y;
/** A "." or ".." segment (resolved away by the parser); in a query too, to keep the test simple. */
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;
/** The same from lastIndex on. */
const DOT_SEGMENT_AFTER = /\/\.\.?(?:[/?]|$)/g;
/** A "." or ".." first segment of a path relative to the base's directory. */
const LEADING_DOT_SEGMENT = /^\.\.?(?:[/?]|$)/;
/** A ":" before the first "/" or "?": the value may be a URL of its own scheme. */
const MAY_BE_SCHEME = /^[^/?]*:/;
/**
 * A host at lastIndex, up to a "/", a "?" or the end: lowercase ASCII labels, none empty or
 * starting or ending with "-", the last starting with a letter (a host ending in a number is read
 * as IPv4); "--" (IDN and its checks) is refused apart.
 */
const PLAIN_HOST = /(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z](?:[a-z0-9-]*[a-z0-9])?(?=[/?]|$)/y;
