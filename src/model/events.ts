import type { ConnectionStatus } from './connection.js';
import type { CrmObjectType, DeletedRecord, UnifiedRecord } from './crm.js';

export type ObjectEventType = 'CREATE' | 'UPDATE' | 'DELETE';

/**
 * A record changed: CREATE and UPDATE carry the full unified record, DELETE only `{ id, nativeId,
 * connectionId }`. `objectType` is one of the spec's nine, or `Email` when `emailEvents` is on.
 */
export interface ObjectChangeEvent {
  eventId: string;
  type: 'OBJECT_CHANGE';
  data: {
    objectType: CrmObjectType;
    eventType: ObjectEventType;
    record: UnifiedRecord | DeletedRecord;
  };
}

/** A connection moved to a new status. */
export interface StatusChangeEvent {
  eventId: string;
  type: 'STATUS_CHANGE';
  data: { status: ConnectionStatus };
}

/** The body of every webhook delivery. */
export type ServiceEvent = ObjectChangeEvent | StatusChangeEvent;

/** Headers of every webhook delivery. */
export const EVENT_HEADERS = {
  timestamp: 'x-service-timestamp',
  signature: 'x-service-signature',
  connectionId: 'x-service-connection-id',
} as const;
