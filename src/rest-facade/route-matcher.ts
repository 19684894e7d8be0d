import { deepFreeze } from '../platform/deep-freeze';
import type { RestRoute } from './route';

interface CompiledPath {
  route: RestRoute;
  segments: { literal?: string; param?: string }[];
}

export type MatchResult =
  | { kind: 'match'; route: RestRoute; pathParams: Record<string, string> }
  | { kind: 'wrong-method'; allowed: string[] }
  | { kind: 'none' };

/**
 * Matches a request path (with or without trailing slash) against the route table. Literal
 * segments win over parameters, so `/v2/lists/usage` is the usage route, not a list id.
 */
export class RouteMatcher {
  private readonly compiled: CompiledPath[];

  constructor(routes: readonly RestRoute[]) {
    this.compiled = routes.map((route) => ({
      route,
      segments: split(route.path).map((s) =>
        s.startsWith('{') ? { param: s.slice(1, -1) } : { literal: s },
      ),
    }));
  }

  /**
   * Answers by method and path, bounded: every request is matched two or three times (metrics,
   * the facade's lanes), and a stored lookup asks for the same path each time. The answers are
   * frozen, as they are shared.
   */
  private readonly known = new Map<string, MatchResult>();

  match(method: string, path: string): MatchResult {
    if (path.length > MAX_REMEMBERED_PATH) return this.find(method, path);
    const key = `${method} ${path}`;
    let result = this.known.get(key);
    if (result === undefined) {
      // The route itself is the table's, not this answer's.
      result = deepFreeze(this.find(method, path), ['route']);
      if (this.known.size >= MAX_REMEMBERED) this.known.clear();
      this.known.set(key, result);
    }
    return result;
  }

  private find(method: string, path: string): MatchResult {
    const parts = split(path);
    const candidates: { route: RestRoute; params: Record<string, string>; literals: number }[] = [];
    for (const { route, segments } of this.compiled) {
      if (segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let literals = 0;
      const ok = segments.every((segment, i) => {
        if (segment.literal !== undefined) {
          literals++;
          return segment.literal === parts[i];
        }
        params[segment.param!] = parts[i];
        return true;
      });
      if (ok) candidates.push({ route, params, literals });
    }
    if (candidates.length === 0) return { kind: 'none' };
    const best = Math.max(...candidates.map((c) => c.literals));
    const top = candidates.filter((c) => c.literals === best);
    const hit = top.find((c) => c.route.method === method || (method === 'HEAD' && c.route.method === 'GET'));
    if (hit) return { kind: 'match', route: hit.route, pathParams: hit.params };
    return { kind: 'wrong-method', allowed: [...new Set(top.map((c) => c.route.method))] };
  }
}

/** Paths whose match is remembered at most, and the longest remembered (ids make paths vary). */
const MAX_REMEMBERED = 1_000;
const MAX_REMEMBERED_PATH = 256;

function split(path: string): string[] {
  return path.split('/').filter(Boolean).map(safeDecode);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
