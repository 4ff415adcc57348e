import type { Clock } from '../clock/clock.js';
import type { ConnectionStatus } from '../model/connection.js';
import type { DeletedRecord, UnifiedRecord } from '../model/crm.js';
import type { ServiceEvent } from '../model/events.js';
import type { IntegrationId } from '../model/integrations.js';
import { Random, type RandomState, randomStateSchema } from '../shared/random.js';
import type { Reservation } from '../shared/reservation.js';
import type { RecordChange } from '../store/connection-data.js';
import { unifiedView } from '../unified/view.js';

/** An event as emitted: the body text is fixed here, so every attempt sends the same bytes. */
export interface EmittedEvent {
  eventId: string;
  connectionId: string;
  /** When it was emitted (ms). */
  createdAt: number;
  event: ServiceEvent;
  /** The exact JSON text posted to the webhook and signed. */
  body: string;
}

/** The factory's state, as a snapshot keeps it: where the stream of event ids stands. */
export const eventFactoryStateSchema = randomStateSchema;

/** Turns store changes and status moves into events with seeded ids. */
export class EventFactory {
  /** The stream of event ids. */
  private random: Random;
  private readonly clock: Clock;
  private reservation: Reservation | undefined;

  constructor(random: Random, clock: Clock, reservation?: Reservation) {
    this.random = random;
    this.clock = clock;
    this.reserve(reservation);
  }

  exportState(): RandomState {
    return this.random.state();
  }

  /** Goes on from a snapshot's position of the event-id stream. */
  importState(state: RandomState): void {
    this.random = Random.fromState(state);
    this.random.reserve(this.reservation);
  }

  /** Counts the event-id stream's draws against a state file's reservation (docs/decisions/0030). */
  reserve(reservation: Reservation | undefined): void {
    this.reservation = reservation;
    this.random.reserve(reservation);
  }

  /** After a crash: moves the event-id stream past what the lost run may have drawn from it. */
  skipDraws(draws: number): void {
    this.random.skipDraws(draws);
  }

  /** An OBJECT_CHANGE: CREATE and UPDATE carry the record as the unified reads answer it (of the connection's integration). */
  objectChange(connectionId: string, integrationId: IntegrationId, change: RecordChange): EmittedEvent {
    const record: UnifiedRecord | DeletedRecord =
      change.eventType === 'DELETE'
        ? { id: change.record.id, nativeId: change.record.nativeId, connectionId }
        : unifiedView(integrationId, change.objectType, change.record);
    return this.emit(connectionId, {
      eventId: this.random.hex(32),
      type: 'OBJECT_CHANGE',
      data: { objectType: change.objectType, eventType: change.eventType, record },
    });
  }

  statusChange(connectionId: string, status: ConnectionStatus): EmittedEvent {
    return this.emit(connectionId, { eventId: this.random.hex(32), type: 'STATUS_CHANGE', data: { status } });
  }

  private emit(connectionId: string, event: ServiceEvent): EmittedEvent {
    return { eventId: event.eventId, connectionId, createdAt: this.clock.now(), event, body: JSON.stringify(event) };
  }
}
