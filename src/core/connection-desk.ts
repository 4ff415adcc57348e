import { type ConnectionStatus, type ConnectionSummary, connectionStatusSchema, type ExchangeResult } from '../model/connection.js';
import { parseOrThrow } from '../shared/validation.js';
import { type ConnectionState, connectionSummary, exchangeResult } from './connections.js';
import { knownConnection } from './known-connection.js';
import type { SandboxParts } from './sandbox-parts.js';
import { acceptedTenant } from './tenants.js';

/**
 * Connections as the link flow and the control API make, list, move and remove them: the registry
 * with the lifecycle that moves a connection's status and the dispatcher that holds its events.
 * Always on the current parts: a reset or a restore swaps them.
 */
export class ConnectionDesk {
  constructor(
    private readonly parts: () => SandboxParts,
    private readonly apiKeys: readonly string[],
  ) {}

  /** Exchanges a public token and starts the connection's lifecycle. */
  exchange(apiKey: string, publicToken: string): ExchangeResult {
    const { registry, lifecycle } = this.parts();
    const connection = registry.exchange(apiKey, publicToken);
    lifecycle.start(connection);
    return exchangeResult(connection);
  }

  connections(apiKey: string): ConnectionSummary[] {
    return this.parts().registry.list(acceptedTenant(this.apiKeys, apiKey)).map(connectionSummary);
  }

  /** Removes a connection with its webhook, pending events and timers. */
  removeConnection(connection: ConnectionState): void {
    const { registry, lifecycle, dispatcher } = this.parts();
    lifecycle.stop(connection);
    dispatcher.connectionRemoved(connection.connectionId);
    registry.remove(connection);
  }

  setStatus(connectionId: string, status: ConnectionStatus): ConnectionSummary {
    const { registry, lifecycle } = this.parts();
    const connection = knownConnection(registry, connectionId);
    lifecycle.force(connection, parseOrThrow(connectionStatusSchema(), status, 'status'));
    return connectionSummary(connection);
  }
}
