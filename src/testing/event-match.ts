import type { ConnectionStatus } from '../model/connection.js';
import type { CrmObjectType } from '../model/crm.js';
import type { CapturedEvent } from './receiver.js';

/** What an event must have to match; every field given must be equal. */
export interface EventMatch {
  type?: 'OBJECT_CHANGE' | 'STATUS_CHANGE';
  objectType?: CrmObjectType;
  eventType?: 'CREATE' | 'UPDATE' | 'DELETE';
  status?: ConnectionStatus;
  connectionId?: string;
  /** The record's id (OBJECT_CHANGE). */
  recordId?: string;
  /** Anything else, as a predicate. */
  where?: (captured: CapturedEvent) => boolean;
}

export function matches(captured: CapturedEvent, match: EventMatch): boolean {
  const { event } = captured;
  const data = event.data as { objectType?: string; eventType?: string; status?: string; record?: { id?: string } };
  if (match.type !== undefined && event.type !== match.type) return false;
  if (match.objectType !== undefined && data.objectType !== match.objectType) return false;
  if (match.eventType !== undefined && data.eventType !== match.eventType) return false;
  if (match.status !== undefined && data.status !== match.status) return false;
  if (match.connectionId !== undefined && captured.connectionId !== match.connectionId) return false;
  if (match.recordId !== undefined && data.record?.id !== match.recordId) return false;
  return match.where === undefined || match.where(captured);
}

/** `OBJECT_CHANGE Contact CREATE v.contact.… (connection 3f2a…)`: one line per event in failure messages. */
export function describeEvent(captured: CapturedEvent): string {
  const { event } = captured;
  const data = event.data as { objectType?: string; eventType?: string; status?: string; record?: { id?: string } };
  const what = event.type === 'STATUS_CHANGE' ? `STATUS_CHANGE ${data.status}` : `OBJECT_CHANGE ${data.objectType} ${data.eventType} ${data.record?.id ?? ''}`;
  return `${what} (connection ${captured.connectionId.slice(0, 8)}…)`;
}

export function describeMatch(match: EventMatch): string {
  const { where, ...fields } = match;
  return JSON.stringify(fields) + (where ? ' + where()' : '');
}

/** The list of what arrived, for a failure message. */
export function arrivedList(events: readonly CapturedEvent[]): string {
  if (events.length === 0) return 'no events arrived';
  return `${events.length} event${events.length === 1 ? '' : 's'} arrived:\n${events.map((e, i) => `  ${i + 1}. ${describeEvent(e)}`).join('\n')}`;
}
