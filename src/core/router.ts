/** A route: a method and a path pattern such as `/sandbox/connections/:connectionId/status`. */
export interface RouteDefinition<H> {
  method: string;
  pattern: string;
  handler: H;
  /** Answers without the service-api-token header (health checks). */
  public?: boolean;
  /** Also takes the admin key (the operations over every tenant, `?all=true`); every other route refuses it as an unknown key. */
  admin?: boolean;
}

export type RouteMatch<H> =
  | { kind: 'found'; route: RouteDefinition<H>; params: Record<string, string> }
  /** The path exists, the method does not: a 405 listing the allowed ones. */
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

/**
 * Matches requests to routes. Static paths are one map lookup (most of the traffic); patterns
 * with parameters are compared segment by segment.
 */
export class Router<H> {
  private readonly staticRoutes = new Map<string, Map<string, RouteDefinition<H>>>();
  private readonly patternRoutes: Array<{ segments: string[]; byMethod: Map<string, RouteDefinition<H>> }> = [];

  constructor(routes: ReadonlyArray<RouteDefinition<H>>) {
    for (const route of routes) this.add(route);
  }

  get routes(): RouteDefinition<H>[] {
    return [
      ...[...this.staticRoutes.values()].flatMap((byMethod) => [...byMethod.values()]),
      ...this.patternRoutes.flatMap((entry) => [...entry.byMethod.values()]),
    ];
  }

  private add(route: RouteDefinition<H>): void {
    if (!route.pattern.includes(':')) {
      const byMethod = this.staticRoutes.get(route.pattern) ?? new Map<string, RouteDefinition<H>>();
      byMethod.set(route.method, route);
      this.staticRoutes.set(route.pattern, byMethod);
      return;
    }
    const segments = route.pattern.split('/');
    let entry = this.patternRoutes.find((existing) => existing.segments.join('/') === segments.join('/'));
    if (!entry) {
      entry = { segments, byMethod: new Map() };
      this.patternRoutes.push(entry);
    }
    entry.byMethod.set(route.method, route);
  }

  match(method: string, path: string): RouteMatch<H> {
    const byStatic = this.staticRoutes.get(path);
    if (byStatic) return this.pick(byStatic, method, {});
    const parts = path.split('/');
    for (const entry of this.patternRoutes) {
      const params = matchSegments(entry.segments, parts);
      if (params) return this.pick(entry.byMethod, method, params);
    }
    return { kind: 'not-found' };
  }

  private pick(byMethod: Map<string, RouteDefinition<H>>, method: string, params: Record<string, string>): RouteMatch<H> {
    const route = byMethod.get(method);
    if (route) return { kind: 'found', route, params };
    return { kind: 'method-not-allowed', allowed: [...byMethod.keys()] };
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const actual = parts[i]!;
    if (expected.startsWith(':')) {
      if (actual === '') return undefined;
      try {
        params[expected.slice(1)] = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}
