import { connectionRoutes } from './connections.js';
import type { Route } from './context.js';
import { controlRoutes } from './control.js';
import { downstreamFaultRoutes } from './downstream-faults.js';
import { engagementRoutes } from './engagement.js';
import { linkRoutes } from './link.js';
import { passthroughRoutes } from './passthrough.js';
import { webhookRoutes } from './webhook.js';

export type { Route, RouteContext, RouteHandler } from './context.js';

/** Every route of the service, then the sandbox's own control API. */
export const ROUTES: Route[] = [
  ...linkRoutes,
  ...connectionRoutes,
  ...engagementRoutes,
  ...webhookRoutes,
  ...passthroughRoutes,
  ...controlRoutes,
  ...downstreamFaultRoutes,
];
