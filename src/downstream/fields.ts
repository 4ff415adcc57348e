import type { CrmObjectType, CrmRecord } from '../model/crm.js';
import { calendarMistake } from '../shared/calendar.js';
import { FieldError, type FieldMap, isPlainObject, NATIVE_PATH, nativeOf, valueAt, type WriteContext } from './rest-engine.js';
import type { DownstreamContext } from './types.js';

/** Field-map builders the system modules are written with. */

/** Converts one value between its unified and native form. `in` throws FieldError for a bad value. */
export interface ValueConverter {
  out(value: unknown): unknown;
  in(value: unknown, native: string): unknown;
}

/** Unchanged both ways: the store checks the type and the error names the native field. */
export const same: ValueConverter = { out: (value) => value, in: (value) => value };

const typeName = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
const typeError = (native: string, expected: string, value: unknown) => new FieldError(native, `${native} must be ${expected}, got ${typeName(value)}`, 'type');

/** Text that arrives as any scalar (HubSpot and Zoho coerce numbers to strings); objects are an error. */
export const text: ValueConverter = {
  out: (value) => value,
  in: (value, native) => {
    if (value === null || typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw typeError(native, 'a string', value);
  },
};

/** A number that HubSpot renders as a string and takes as either. */
export const numericString: ValueConverter = {
  out: (value) => (value === null || value === undefined ? null : String(value)),
  in: (value, native) => {
    if (value === null || value === '') return null;
    if (typeof value === 'number') return value;
    if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
    throw new FieldError(native, `${native}: ${JSON.stringify(value)} was not a valid number`, typeof value === 'string' ? 'value' : 'type');
  },
};

/** Unified times are ISO-8601 UTC; each system writes them its own way (a system's own format: its `formats.ts`). */
export const timeFormat = {
  iso: (iso: string) => iso,
  /** `2024-05-01` */
  date: (iso: string) => iso.slice(0, 10),
};

const TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::(\d{2})(\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * A native time (any system's format: `+0000` or `+00:00` offsets, a space for the `T`, a bare
 * date, or epoch ms as HubSpot takes them) as a unified ISO time.
 */
export function parseTime(value: unknown, native: string): string | null {
  if (value === null || value === '') return null;
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value).toISOString();
  if (typeof value !== 'string') throw typeError(native, 'a date-time string', value);
  if (/^\d{11,}$/.test(value)) return new Date(Number(value)).toISOString();
  const m = TIME.exec(value.trim());
  // Date.parse would roll an impossible day over into the next month (2025-02-30 → March 2): refused, as the platforms refuse it.
  const mistake = m ? calendarMistake(value.trim()) : undefined;
  if (mistake) throw new FieldError(native, `${native}: ${JSON.stringify(value)} is not a valid date-time (${mistake})`, 'value');
  const zone = m?.[5] === undefined || m[5] === 'Z' ? 'Z' : m[5].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = m ? Date.parse(`${m[1]}T${m[2] ?? '00:00'}:${m[3] ?? '00'}${(m[4] ?? '').slice(0, 4)}${zone}`) : Number.NaN;
  if (Number.isNaN(ms)) throw new FieldError(native, `${native}: ${JSON.stringify(value)} is not a valid date-time`, 'value');
  return new Date(ms).toISOString();
}

/** A time field rendered with `format`. */
export const time = (format: (iso: string) => string): ValueConverter => ({
  out: (value) => (typeof value === 'string' ? format(value) : null),
  in: (value, native) => parseTime(value, native),
});

/** A date-only field (Salesforce CloseDate): the day of the unified time, written as midnight UTC. */
export const date: ValueConverter = time(timeFormat.date);

/** A unified probability string ("0.4") as a percent number (40). */
export const percent: ValueConverter = {
  out: (value) => (typeof value === 'string' ? Math.round(Number(value) * 100 * 1e6) / 1e6 : null),
  in: (value, native) => {
    if (value === null) return null;
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n)) throw typeError(native, 'a number', value);
    return String(Math.round(n * 1e4) / 1e6);
  },
};

/** A single value held natively as a list (Outreach `emails: ["…"]`); writes take the first. */
export const firstOfList: ValueConverter = {
  out: (value) => (value === null || value === undefined ? [] : [value]),
  in: (value, native) => {
    if (!Array.isArray(value)) throw typeError(native, 'an array', value);
    return value.length === 0 ? null : value[0];
  },
};

/** A value looked up in a two-way table (HubSpot task status `NOT_STARTED` ↔ `Not Started`); unknown values pass. */
export function table(pairs: Record<string, string>): ValueConverter {
  const back = Object.fromEntries(Object.entries(pairs).map(([unified, native]) => [native, unified]));
  return {
    out: (value) => (typeof value === 'string' ? (pairs[value] ?? value) : value),
    in: (value) => (typeof value === 'string' ? (back[value] ?? value) : value),
  };
}

/** A native field holding one unified field (or nested part, `address.city`). */
export function field(native: string, unified: string, conv: ValueConverter = same): FieldMap {
  return {
    native,
    covers: [unified],
    read: (record) => {
      const value = valueAt(record, unified);
      return value === null || value === undefined ? null : conv.out(value);
    },
    write: (value) => ({ [unified]: conv.in(value, native) }),
  };
}

/** A read-only native field computed from the record. */
export function computed(native: string, read: (record: CrmRecord, context: DownstreamContext) => unknown): FieldMap {
  return { native, covers: [], read };
}

/** A field map without its write: shown, never written. */
export function locked(map: FieldMap): FieldMap {
  const { write: _write, ...rest } = map;
  return { ...rest, covers: [] };
}

/** A field map without its read: taken on writes, never shown (Salesloft's `account_id`). */
export function writeOnly(map: FieldMap): FieldMap {
  const { read: _read, ...rest } = map;
  return rest;
}

/** A read-only copy of a unified field (times, ids, derived values). */
export const readOnly = (native: string, unified: string, conv: ValueConverter = same): FieldMap => locked(field(native, unified, conv));

/** A native field written through `write` alone, e.g. several unified values from one native one. */
export function custom(
  native: string,
  covers: readonly string[],
  read: FieldMap['read'],
  write: (value: unknown, write: WriteContext) => Record<string, unknown>,
): FieldMap {
  return { native, covers, ...(read ? { read } : {}), write };
}

/**
 * A native value the unified model has no place for (a Pipedrive lead's `value`): kept as
 * written (after `check`, which throws FieldError for a bad one), `empty` until then.
 */
export function stored(
  native: string,
  empty: (record: CrmRecord, context: DownstreamContext) => unknown,
  check: (value: unknown, native: string) => unknown,
): FieldMap {
  return {
    native,
    covers: [],
    read: (record, context, extra) => {
      const values = nativeOf(extra);
      return Object.hasOwn(values, native) ? values[native] : empty(record, context);
    },
    write: (value) => ({ [`${NATIVE_PATH}.${native}`]: check(value, native) }),
  };
}

/** A native text field the unified model has no place for (an Outreach prospect's `addressCity`): a string or null, null until written. */
export const storedText = (native: string): FieldMap =>
  stored(
    native,
    () => null,
    (value, name) => {
      if (value === null || typeof value === 'string') return value;
      throw typeError(name, 'a string', value);
    },
  );

/** A field the system takes but the unified model has no place for (a Salesforce Note's Title): ignored on write. */
export function ignoredOnWrite(native: string, read: (record: CrmRecord) => unknown): FieldMap {
  return { native, covers: [], read, write: () => ({}) };
}

/** Where a native reference points: the unified type and the association field that holds it. */
export interface Target {
  type: CrmObjectType;
  assoc: string;
}

/** `to('Account', 'accountIds')`: the Target a reference field points at. */
export const to = (type: CrmObjectType, assoc: string): Target => ({ type, assoc });

/** How a system shows a reference: a bare id, a number, a `{ id, name }` lookup… */
export type RefStyle = (nativeId: string, target: CrmRecord, type: CrmObjectType, context: DownstreamContext) => unknown;
export const asString: RefStyle = (nativeId) => nativeId;
export const asNumber: RefStyle = (nativeId) => Number(nativeId);

/** The native id a written reference names: an id, or an object carrying one (`{ id }`, `{ value }`, `{ data: { id } }`). */
function referencedId(value: unknown, native: string): string | null {
  if (value === null || value === '') return null;
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (isPlainObject(value)) {
    if ('data' in value) return value.data === null ? null : referencedId(value.data, native);
    if ('id' in value) return referencedId(value.id, native);
    if ('value' in value) return referencedId(value.value, native);
  }
  throw typeError(native, 'an id', value);
}

const isMany = (assoc: string) => assoc.endsWith('Ids');

/**
 * A native reference (Salesforce `AccountId`, Pipedrive `org_id`) over one association, or a
 * polymorphic one (`WhoId`: a Contact or a Lead) over several. Reads the first linked record;
 * a write links the one record it names, found by native id, and clears the other targets.
 * `also` adds unified values that follow from the target type (an attendee's kind).
 */
export function ref(
  native: string,
  targets: Target | readonly Target[],
  style: RefStyle = asString,
  also?: (type: CrmObjectType) => Record<string, unknown>,
): FieldMap {
  const list = Array.isArray(targets) ? (targets as readonly Target[]) : [targets as Target];
  return {
    native,
    covers: list.map((target) => `associations.${target.assoc}`),
    read: (record, context) => {
      const associations = record.associations as Record<string, unknown>;
      for (const target of list) {
        const held = associations[target.assoc];
        const id = Array.isArray(held) ? held[0] : held;
        const linked = typeof id === 'string' ? context.data.crm[target.type].get(id) : undefined;
        if (linked) return style(linked.nativeId, linked, target.type, context);
      }
      return null;
    },
    write: (value, { context }) => {
      const nativeId = referencedId(value, native);
      const clear = Object.fromEntries(list.map((target) => [`associations.${target.assoc}`, isMany(target.assoc) ? [] : null]));
      if (nativeId === null) return clear;
      for (const target of list) {
        const entry = context.data.crm[target.type].getByNativeId(nativeId);
        if (!entry) continue;
        const id = entry.record.id;
        return { ...clear, [`associations.${target.assoc}`]: isMany(target.assoc) ? [id] : id, ...also?.(target.type) };
      }
      throw new FieldError(native, `${native}: no ${list.map((target) => target.type).join(' or ')} with id ${JSON.stringify(nativeId)}`, 'reference');
    },
  };
}

/** The record's owner, a User. */
export const owner = (native: string, style: RefStyle = asString): FieldMap => ref(native, { type: 'User', assoc: 'ownerUserId' }, style);

/** What a stage write covers: the stage and the flags that follow it. */
export const STAGE_COVERS = ['stage', 'isClosed', 'isWon'] as const;
/** What a task status write covers: the status and `isDone`. */
export const TASK_STATUS_COVERS = ['status', 'isDone'] as const;

/** Writing a deal stage moves the won/closed flags with it, as the CRMs derive them. */
export function stageWrites(stage: unknown): Record<string, unknown> {
  if (typeof stage !== 'string') return { stage };
  const key = stage.toLowerCase().replace(/[\s_-]/g, '');
  return { stage, isClosed: key.startsWith('closed'), isWon: key === 'closedwon' };
}

/**
 * A task's native done flag or state (Pipedrive `done`, Outreach `state`, Salesloft
 * `current_state`): `doneValue` or `openValue`. Writing it moves the unified status with it.
 */
export function taskDone(
  native: string,
  doneValue: unknown,
  openValue: unknown,
  parse: (value: unknown) => boolean | undefined = (value) => (value === doneValue ? true : value === openValue ? false : undefined),
): FieldMap {
  return custom(
    native,
    TASK_STATUS_COVERS,
    (record) => ((record as CrmRecord<'Task'>).isDone ? doneValue : openValue),
    (value, { current }) => {
      const isDone = parse(value);
      if (isDone === undefined) throw new FieldError(native, `${native} must be ${JSON.stringify(doneValue)} or ${JSON.stringify(openValue)}`, 'value');
      const status = (current as CrmRecord<'Task'> | undefined)?.status ?? 'Not Started';
      return { isDone, status: isDone ? 'Completed' : status === 'Completed' ? 'Not Started' : status };
    },
  );
}

/** Writing a task status moves `isDone` with it. */
export function taskStatusWrites(status: unknown): Record<string, unknown> {
  return typeof status === 'string' ? { status, isDone: /^completed?$/i.test(status) } : { status };
}
