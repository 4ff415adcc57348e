import type { Clock } from '../clock/clock.js';
import type { EmittedEvent, EventFactory } from '../events/event-factory.js';
import type { ConnectionStatus } from '../model/connection.js';
import type { ServiceEvent } from '../model/events.js';
import type { IntegrationId } from '../model/integrations.js';
import type { ChangeSink, RecordChange } from '../store/connection-data.js';
import type { Dispatcher } from '../webhooks/dispatcher.js';
import type { ConnectionState } from './connections.js';

/** Called for every event the sandbox emits, as it is emitted. */
export type EventListener = (event: ServiceEvent, meta: { connectionId: string }) => void;

export interface EventSinkOptions {
  clock: Clock;
  events: EventFactory;
  /** Where each event is queued for delivery to the connection's webhook. */
  dispatcher: Dispatcher;
  /** Email is not among the spec's objectType values: its changes are events only when asked for (`emailEvents`). */
  emailEvents: boolean;
  /** The connection of an id, to count a change as activity on it. */
  connectionOf: (connectionId: string) => ConnectionState | undefined;
  /** `sandbox.onEvent`'s listeners: the sandbox's, kept across resets. */
  listeners: ReadonlySet<EventListener>;
  /** Told of every event: the sandbox's state revision moves. */
  onEvent: () => void;
}

/**
 * Where every event of a set of parts goes, the one way down: a store's record change (each
 * connection's store is given this sink at construction) or a lifecycle's status move becomes an
 * event, queued for delivery (src/webhooks/dispatcher.ts) and told to the listeners.
 */
export class EventSink implements ChangeSink {
  constructor(private readonly options: EventSinkOptions) {}

  recordChanged(connectionId: string, integrationId: IntegrationId, change: RecordChange): void {
    const { clock, connectionOf, emailEvents, events } = this.options;
    const connection = connectionOf(connectionId);
    if (connection) connection.lastActivity = clock.now();
    if (change.objectType === 'Email' && !emailEvents) return;
    this.emit(events.objectChange(connectionId, integrationId, change));
  }

  statusChanged(connection: { connectionId: string }, status: ConnectionStatus): void {
    this.emit(this.options.events.statusChange(connection.connectionId, status));
  }

  private emit(emitted: EmittedEvent): void {
    this.options.onEvent();
    this.options.dispatcher.enqueue(emitted);
    for (const listener of this.options.listeners) listener(emitted.event, { connectionId: emitted.connectionId });
  }
}
