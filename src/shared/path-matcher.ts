/**
 * The one path matcher of the sandbox: the core's routes and each simulated system's.
 *
 * A pattern is a path whose `:name` segments take any non-empty segment (`/sandbox/connections/:connectionId`,
 * `crm/v3/objects/:type/search`). Of the patterns that match a path, the most specific one
 * that takes the method answers: a static segment beats a `:param` at the same position,
 * compared left to right; equally specific patterns keep their declaration order. So no route
 * list needs an order (`…/search` beats `…/:id` wherever it is declared). A path that only
 * matches with other methods is "method not allowed", with those methods in declaration order.
 * Static patterns are one map lookup.
 */

/** What a route gives the matcher: its methods, its pattern, and what to answer when it matches. */
export interface PathEntry<T> {
  readonly methods: readonly string[];
  readonly pattern: string;
  readonly value: T;
}

export interface PathMatcherOptions {
  /** Trailing slashes dropped before matching: `v1/users/` is `v1/users` (the simulated systems). Else `/x/` is not `/x` (the core). */
  trimTrailingSlashes?: boolean;
  /** A `:param` segment with a malformed %-escape: kept as sent (`'keep'`, the simulated systems) or the pattern does not match (`'no-match'`, the core). */
  malformedEscapes: 'keep' | 'no-match';
}

export type PathMatch<T> =
  | { kind: 'found'; value: T; params: Record<string, string> }
  /** The path exists, the method does not: the methods it takes. */
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

/** One pattern with every method declared on it; `order` numbers each (method, route) in declaration order. */
interface Group<T> {
  readonly segments: readonly string[];
  readonly byMethod: Map<string, { value: T; order: number }>;
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export class PathMatcher<T> {
  private readonly statics = new Map<string, Group<T>>();
  /** Patterns with parameters, by segment count, most specific first. */
  private readonly dynamics = new Map<number, Group<T>[]>();

  constructor(
    entries: Iterable<PathEntry<T>>,
    private readonly options: PathMatcherOptions,
  ) {
    const groups = new Map<string, Group<T>>();
    let order = 0;
    for (const { methods, pattern, value } of entries) {
      let group = groups.get(pattern);
      if (!group) {
        group = { segments: pattern.split('/'), byMethod: new Map() };
        groups.set(pattern, group);
      }
      // The first route declared for a method and pattern answers it.
      for (const method of methods) if (!group.byMethod.has(method)) group.byMethod.set(method, { value, order: order++ });
    }
    for (const [pattern, group] of groups) {
      if (!group.segments.some(isParam)) {
        this.statics.set(pattern, group);
        continue;
      }
      const sameLength = this.dynamics.get(group.segments.length) ?? [];
      sameLength.push(group);
      this.dynamics.set(group.segments.length, sameLength);
    }
    // Stable: equally specific patterns stay in declaration order.
    for (const list of this.dynamics.values()) list.sort((a, b) => compareSpecificity(a.segments, b.segments));
  }

  match(method: string, rawPath: string): PathMatch<T> {
    const path = this.options.trimTrailingSlashes ? withoutTrailingSlashes(rawPath) : rawPath;
    const exact = this.statics.get(path);
    const found = exact?.byMethod.get(method);
    if (found) return { kind: 'found', value: found.value, params: NO_PARAMS };
    // Rejected methods, gathered only when a path matches without the method (rare).
    let rejected: Array<{ method: string; order: number }> | undefined;
    if (exact) rejected = others(exact, rejected);
    const candidates = this.dynamics.get(countSegments(path));
    if (candidates) {
      const parts = path.split('/');
      for (const group of candidates) {
        const params = this.params(group.segments, parts);
        if (!params) continue;
        const route = group.byMethod.get(method);
        if (route) return { kind: 'found', value: route.value, params };
        rejected = others(group, rejected);
      }
    }
    if (!rejected) return { kind: 'not-found' };
    rejected.sort((a, b) => a.order - b.order);
    return { kind: 'method-not-allowed', allowed: [...new Set(rejected.map((entry) => entry.method))] };
  }

  /** The parameters of a path that matches a pattern's segments, decoded; undefined if it does not match. */
  private params(pattern: readonly string[], parts: readonly string[]): Record<string, string> | undefined {
    for (let i = 0; i < pattern.length; i++) {
      const expected = pattern[i]!;
      if (isParam(expected) ? parts[i] === '' : expected !== parts[i]) return undefined;
    }
    const params: Record<string, string> = {};
    for (let i = 0; i < pattern.length; i++) {
      const expected = pattern[i]!;
      if (!isParam(expected)) continue;
      const decoded = decodeSegment(parts[i]!);
      if (decoded === undefined && this.options.malformedEscapes === 'no-match') return undefined;
      params[expected.slice(1)] = decoded ?? parts[i]!;
    }
    return params;
  }
}

const isParam = (segment: string) => segment.charCodeAt(0) === 0x3a; /* : */

/** Most specific first: at the first position where one pattern has a static segment and the other a parameter, the static one. */
function compareSpecificity(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [paramA, paramB] = [isParam(a[i]!), isParam(b[i]!)];
    if (paramA !== paramB) return paramA ? 1 : -1;
  }
  return 0;
}

function others<T>(group: Group<T>, rejected: Array<{ method: string; order: number }> | undefined) {
  const list = rejected ?? [];
  for (const [method, { order }] of group.byMethod) list.push({ method, order });
  return list;
}

function countSegments(path: string): number {
  let count = 1;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 0x2f) count++;
  return count;
}

/** Trailing slashes dropped, by a loop: `/\/+$/` backtracks quadratically on a long run of slashes. */
function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end--;
  return end === path.length ? path : path.slice(0, end);
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
