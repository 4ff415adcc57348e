import { ApiError } from '../shared/errors.js';
import type { ConnectionRegistry, ConnectionState } from './connections.js';

/** The connection of an id, any tenant's (the Sandbox's methods act on all), else a 404 naming `connectionId`. */
export function knownConnection(registry: ConnectionRegistry, connectionId: string): ConnectionState {
  const connection = registry.find(connectionId);
  if (!connection) throw ApiError.notFound('Connection', connectionId, 'connectionId');
  return connection;
}
