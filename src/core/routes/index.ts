import { chaosRoutes } from './chaos.js';
import { clientCheckRoutes } from './client-check.js';
import { connectionRoutes } from './connections.js';
import type { Route } from './context.js';
import { controlRoutes } from './control.js';
import { downstreamFaultRoutes } from './downstream-faults.js';
import { faultRoutes } from './faults.js';
import { inspectorRoutes } from './inspector.js';
import { integrationRoutes } from './integrations.js';
import { journalRoutes } from './journal.js';
import { linkRoutes } from './link.js';
import { linkWidgetRoutes } from './link-widget.js';
import { openApiJsonRoutes } from './openapi-json.js';
import { passthroughRoutes } from './passthrough.js';
import { scenarioRoutes } from './scenarios.js';
import { stateRoutes } from './state.js';
import { unifiedCrmRoutes } from './unified-crm.js';
import { unifiedEngagementRoutes } from './unified-engagement.js';
import { webhookRoutes } from './webhook.js';

export type { Route, RouteContext, RouteDeps, RouteHandler } from './context.js';

/** Every route of the service, then the sandbox's own control API, each declared once (the OpenAPI document lists them in this order). */
export const ROUTES: Route[] = [
  ...linkRoutes,
  ...linkWidgetRoutes,
  ...connectionRoutes,
  ...integrationRoutes,
  ...unifiedCrmRoutes,
  ...unifiedEngagementRoutes,
  ...webhookRoutes,
  ...passthroughRoutes,
  ...controlRoutes,
  ...chaosRoutes,
  ...scenarioRoutes,
  ...inspectorRoutes,
  ...stateRoutes,
  ...journalRoutes,
  ...faultRoutes,
  ...downstreamFaultRoutes,
  ...clientCheckRoutes,
  ...openApiJsonRoutes,
];
