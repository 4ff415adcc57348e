import type { ConnectionStatus } from '../../model/connection-statuses.js';
import { TOKEN_KEY } from './vocabulary.js';

/**
 * What every part of the inspector shares: the page's fixed elements, what it shows (`state`),
 * what it last drew, and the small helpers that write to the page.
 */

export type Tab = 'connections' | 'scenarios' | 'requests' | 'client-check';

/** An API error's answer, with the HTTP status it came with (what `api` throws). */
export interface ApiFailure {
  status?: number;
  errorCode?: string;
  message?: string;
  metadata?: { field?: string };
}

export interface Webhook {
  webhookId: string;
  webhookUrl: string;
  createdTime: string;
}

/** A connection as GET /sandbox/connections lists it. */
export interface Connection {
  connectionId: string;
  integrationId: string;
  orgName: string;
  nativeOrgId: string;
  nativeOrgURL: string;
  status: ConnectionStatus;
  createdTime: string;
  webhook: Webhook | null;
}

/** A record of any type: its id and modifiedTime, and the fields its columns name. */
export type Row = Record<string, unknown> & { id: string; modifiedTime?: string };

export interface RecordsPage {
  records: Row[];
  nextPageCursor: string | null;
}

export interface Attempt {
  attempt: number;
  time: string;
  webhookUrl: string;
  status: number | null;
  durationMs: number;
  error?: string;
  trigger: string;
  headers: Record<string, string>;
}

export interface Delivery {
  eventId: string;
  type: string;
  state: string;
  createdTime: string;
  nextAttemptTime?: string | null;
  failureReason?: string | null;
  event: { data: { status?: string; objectType?: string; eventType?: string } };
  attempts: Attempt[];
}

/** A delivery with its exact body and the signed headers of each attempt (GET /sandbox/deliveries/{eventId}). */
export type DeliveryDetail = Delivery & { body: string };

/** A unified object the selected connection serves (GET /sandbox/connections/{id}/unified). */
export interface UnifiedObject {
  objectType: string;
  path: string;
  listKey: string;
}

export const app = document.getElementById('app')!;
const announce = document.getElementById('announce')!;
export const live = document.getElementById('live')!;
export const tabs = document.getElementById('tabs')!;
export const forget = document.getElementById('forget')!;

export const state = {
  token: sessionStorage.getItem(TOKEN_KEY) || '',
  tab: 'connections' as Tab,
  connections: [] as Connection[],
  selectedId: null as string | null,
  recordType: 'Contact',
  cursors: [''],
  page: null as RecordsPage | null,
  deliveries: [] as Delivery[],
  expanded: {} as Record<string, boolean>,
  details: {} as Record<string, DeliveryDetail>,
  editing: null as { id: string; fields: Record<string, unknown> } | null,
  /** The unified objects of the selected connection (GET /sandbox/connections/{id}/unified), the one shown, how many of its pages, and the records opened to their JSON. */
  unifiedObjects: null as UnifiedObject[] | null,
  unifiedType: null as string | null,
  unifiedPages: 1,
  unifiedOpen: {} as Record<string, boolean>,
  /** The unified records' search box. */
  unifiedSearch: '',
  /** accessTokens of the connections whose engagement objects were read, by connectionId. */
  accessTokens: {} as Record<string, string>,
};

/** The JSON last drawn per section: a poll redraws a section only when its data changed. */
export const drawn: Record<string, string | null> = {};

/** Forgets what was drawn, so the next poll draws every section again. */
export function redrawAll(): void {
  for (const section of Object.keys(drawn)) delete drawn[section];
}

export function say(text: string): void {
  announce.textContent = '';
  announce.textContent = text;
}

export function describeError(error: unknown): string {
  if (!error) return 'unknown error';
  const failure = error as ApiFailure;
  const field = failure.metadata?.field ? ` (field: ${failure.metadata.field})` : '';
  return (failure.status ? `${failure.status} ` : '') + (failure.errorCode ? `${failure.errorCode}: ` : '') + (failure.message || String(error)) + field;
}

export function time(iso: string | null | undefined): string {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '';
}

/** A value in a table cell: empty for null and absent ones. */
export function cell(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

/** Draws a section (the element of that id) again, but only when its data changed since it was last drawn. */
export function draw<T>(section: string, data: T, render: (target: HTMLElement, data: T) => void): void {
  const json = JSON.stringify(data);
  const target = document.getElementById(section);
  if (!target || drawn[section] === json) return;
  drawn[section] = json;
  const focused = document.activeElement?.id;
  target.textContent = '';
  render(target, data);
  // A redraw must not lose the keyboard user's place: controls have stable ids.
  const again = focused && document.getElementById(focused);
  if (again && again !== document.activeElement && target.contains(again)) again.focus();
}

/** Shows how a change went under the editor (or only says it, when the editor is not on the page). */
export function setMessage(text: string, isError: boolean): void {
  const box = document.getElementById('editor-message');
  if (!box) {
    if (text) say(text);
    return;
  }
  box.textContent = text;
  box.className = isError ? 'error' : 'muted';
  if (text) say(text);
}
