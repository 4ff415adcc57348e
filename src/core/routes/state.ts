import { ApiError } from '../../shared/errors.js';
import { queryParam } from '../http.js';
import type { Route, RouteContext } from './context.js';

/** `?all=true` or `?all=false` (absent: false); anything else is a 400 naming `all`. */
function allFlag(ctx: RouteContext): boolean {
  const value = queryParam(ctx.query, 'all');
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw ApiError.invalidField('all', `all must be true or false, got ${JSON.stringify(value)}`);
}

/**
 * Reset and snapshots of the sandbox's state: `POST /sandbox/reset` empties the caller's
 * tenancy (or everything with `?all=true`); `GET`/`PUT /sandbox/snapshot` read and replace the
 * whole state as versioned JSON.
 */
export const stateRoutes: Route[] = [
  {
    method: 'POST',
    pattern: '/sandbox/reset',
    handler: (ctx) => {
      const all = allFlag(ctx);
      ctx.sandbox.reset(all ? {} : { apiKey: ctx.apiKey });
      return { body: { reset: all ? 'all' : 'tenancy' } };
    },
  },
  {
    method: 'GET',
    pattern: '/sandbox/snapshot',
    handler: (ctx) => ({ body: ctx.sandbox.snapshot() }),
  },
  {
    method: 'PUT',
    pattern: '/sandbox/snapshot',
    handler: (ctx) => {
      ctx.sandbox.restore(ctx.body());
      const { parts } = ctx.sandbox;
      return { body: { restored: { connections: parts.registry.all().length, deliveries: ctx.sandbox.deliveries().length } } };
    },
  },
];
