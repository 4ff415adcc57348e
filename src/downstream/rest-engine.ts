import * as z from 'zod';
import { CRM_FIELDS, type CrmObjectType, type CrmRecord, type CrmWrite } from '../model/crm.js';
import { ApiError, ErrorCode } from '../shared/errors.js';
import type { FieldIssue } from '../shared/validation.js';
import type { ConnectionData } from '../store/connection-data.js';
import type { Entry } from '../store/ordered-collection.js';
import type { DownstreamContext } from './types.js';

/**
 * The shared engine of the simulated systems: a native object is a list of field maps between
 * native names and unified fields. Reads render a stored record through them; writes translate
 * a native body back into a unified write and go through `ConnectionData`, so every change is
 * validated and reported like any other.
 */

/** A native record or body by its fields: native field name → value. */
export type NativeFields = Record<string, unknown>;

/** What went wrong with a native write, for each system to phrase in its own error body. */
export type ErrorKind = 'type' | 'value' | 'required' | 'unknown' | 'readOnly' | 'reference' | 'body' | 'param';

/** Bad native input, named by its native field. Thrown by codecs and the engine; answered as a native 4xx. */
export class FieldError extends Error {
  readonly field: string | undefined;
  readonly kind: ErrorKind;
  /** The native error code, when the thrower knows it better than the kind says (`MALFORMED_QUERY`). */
  readonly code: string | undefined;

  constructor(field: string | undefined, message: string, kind: ErrorKind, code?: string) {
    super(message);
    this.name = 'FieldError';
    this.field = field;
    this.kind = kind;
    this.code = code;
  }
}

/** What a codec sees when it translates one native value of a write. */
export interface WriteContext {
  context: DownstreamContext;
  type: CrmObjectType;
  /** The whole native body, for fields that only make sense together (a date and a time). */
  body: NativeFields;
  /** The record before an update; undefined on create. */
  current: CrmRecord | undefined;
}

/** One native field. */
export interface FieldMap {
  native: string;
  /** Its value for a stored record; absent for write-only fields (Salesloft's `account_id`). */
  read?(record: CrmRecord, context: DownstreamContext, extra: Record<string, unknown>): unknown;
  /**
   * Unified paths and values for a written native value: `firstName`, `address.city`,
   * `associations.accountIds`. Absent for read-only fields. Throws FieldError for a bad value.
   */
  write?(value: unknown, write: WriteContext): Record<string, unknown>;
  /** The unified paths it writes: store errors on them are reported under this native name. */
  covers: readonly string[];
}

/** How a system names custom fields (`Region__c`, `custom1`, `custom_fields.region`…). */
export interface CustomScheme {
  /** Native fields for the stored custom values (`extra.custom`). */
  read(custom: Record<string, unknown>): NativeFields;
  /** The custom values a native field carries, or undefined when it is no custom field. Throws FieldError. */
  write(native: string, value: unknown): Record<string, unknown> | undefined;
}

/** A native object type: its name for messages, its fields, what a create needs. */
export interface NativeObject {
  type: CrmObjectType;
  /** Native name for messages: `Contact`, `Person`, `prospect`. */
  name: string;
  fields: readonly FieldMap[];
  custom?: CustomScheme;
  /** Native fields a create must carry. */
  required?: readonly string[];
  /**
   * Unified values a native create starts from, where the system has a default (a task's status);
   * or worked out from the create (an email's sender: the address of the user who logs it).
   */
  defaults?: Record<string, unknown> | ((write: WriteContext) => Record<string, unknown>);
  /** Listed and read only (users, mostly). */
  readOnly?: boolean;
  /** In a collection several types share (Pipedrive activities): does a create body belong to this type? */
  accepts?(body: NativeFields): boolean;
}

/** What a system does with native fields it does not know or may not write: reject (400) or ignore. */
export interface WritePolicy {
  unknown: 'reject' | 'ignore';
  readOnly: 'reject' | 'ignore';
}

/** A stored record found through a native object. */
export interface Found {
  object: NativeObject;
  entry: Entry<CrmRecord>;
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A unified value by path (`address.city`). */
export function valueAt(record: CrmRecord, path: string): unknown {
  let value: unknown = record;
  for (const key of path.split('.')) value = isPlainObject(value) ? value[key] : undefined;
  return value;
}

/** The custom fields stored for a record. */
export const customOf = (extra: Record<string, unknown>): Record<string, unknown> => (isPlainObject(extra.custom) ? extra.custom : {});

/**
 * Where a write path points at a native value the unified model has no place for (a Pipedrive
 * lead's `value`): `$native.value`. Such values are kept as written in the record's `extra.native`.
 */
export const NATIVE_PATH = '$native';

/** The native-only values stored for a record. */
export const nativeOf = (extra: Record<string, unknown>): Record<string, unknown> => (isPlainObject(extra.native) ? extra.native : {});

/** A record in an object's native fields, custom fields last. */
export function renderFields(object: NativeObject, record: CrmRecord, extra: Record<string, unknown>, context: DownstreamContext): NativeFields {
  const out: NativeFields = {};
  for (const field of object.fields) if (field.read) out[field.native] = field.read(record, context, extra);
  if (object.custom) Object.assign(out, object.custom.read(customOf(extra)));
  return out;
}

/** The record with a native id among the objects of a collection. */
export function findRecord(objects: readonly NativeObject[], nativeId: string, data: ConnectionData): Found | undefined {
  for (const object of objects) {
    const entry = data.crm[object.type].getByNativeId(nativeId);
    if (entry) return { object, entry };
  }
  return undefined;
}

/** A page by position over one or more collections, in order; `total` counts them all. */
export function pageOf(objects: readonly NativeObject[], offset: number, limit: number, data: ConnectionData): { found: Found[]; total: number } {
  const found: Found[] = [];
  let skip = offset;
  let total = 0;
  for (const object of objects) {
    const collection = data.crm[object.type];
    total += collection.size;
    if (found.length < limit) {
      for (const entry of collection.slice(skip, limit - found.length)) found.push({ object, entry });
    }
    skip = Math.max(0, skip - collection.size);
  }
  return { found, total };
}

/** Every record of the objects, in order (for queries that filter). */
export function allOf(objects: readonly NativeObject[], data: ConnectionData): Found[] {
  return objects.flatMap((object) => data.crm[object.type].entries().map((entry) => ({ object, entry })));
}

type Shape = Record<string, z.ZodType>;
const shapeOf = (type: CrmObjectType): Shape => CRM_FIELDS[type].shape as Shape;

/** Keys of a nested object field (the address parts), so a partial native write can fill the rest. */
function nestedKeys(type: CrmObjectType, field: string): string[] {
  let schema: unknown = shapeOf(type)[field];
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional) schema = schema.unwrap();
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/**
 * What a native create leaves out is empty, as in the real systems (the store would otherwise
 * generate it): null where the field may be null, false for flags, no items for lists.
 */
function emptyDefaults(object: NativeObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of object.fields) {
    if (!field.write) continue;
    for (const path of field.covers) {
      const head = path.split('.')[0]!;
      const schema = shapeOf(object.type)[head];
      if (path.startsWith('associations.') || !schema) continue;
      if (schema.safeParse(null).success) out[head] = null;
      else if (schema.safeParse(false).success) out[head] = false;
      else if (schema.safeParse([]).success) out[head] = [];
    }
  }
  return out;
}

const isBlank = (value: unknown) => value === undefined || value === null || value === '';

/**
 * Translates a native body into a unified write and the custom values it carries. A `partial`
 * body (the native fields beside a unified write: its `additional`) needs no required field and
 * starts from nothing.
 */
export function translate(
  object: NativeObject,
  body: NativeFields,
  policy: WritePolicy,
  context: DownstreamContext,
  current?: CrmRecord,
  partial = false,
): { input: CrmWrite; custom: Record<string, unknown>; native?: Record<string, unknown> } {
  const write: WriteContext = { context, type: object.type, body, current };
  const paths: Record<string, unknown> = {};
  const custom: Record<string, unknown> = {};
  const native: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    const field = object.fields.find((candidate) => candidate.native === name);
    if (field?.write) {
      Object.assign(paths, field.write(value, write));
      continue;
    }
    if (field) {
      if (policy.readOnly === 'reject') throw new FieldError(name, `${name} is read-only on ${object.name}`, 'readOnly');
      continue;
    }
    const values = object.custom?.write(name, value);
    if (values) Object.assign(custom, values);
    else if (policy.unknown === 'reject') throw new FieldError(name, `${name} is not a field of ${object.name}`, 'unknown');
  }
  if (!current && !partial) {
    for (const name of object.required ?? []) {
      if (isBlank(body[name])) throw new FieldError(name, `${name} is required`, 'required');
    }
  }

  const defaults = current || partial ? undefined : typeof object.defaults === 'function' ? object.defaults(write) : object.defaults;
  const input: Record<string, unknown> = current || partial ? {} : { ...emptyDefaults(object), ...defaults };
  const associations: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(paths)) {
    const [head, key] = path.split('.') as [string, string | undefined];
    if (head === NATIVE_PATH && key) {
      native[key] = value;
    } else if (head === 'associations' && key) {
      associations[key] = value;
    } else if (key) {
      const base = isPlainObject(input[head])
        ? input[head]
        : current && isPlainObject(valueAt(current, head))
          ? (valueAt(current, head) as Record<string, unknown>)
          : Object.fromEntries(nestedKeys(object.type, head).map((part) => [part, null]));
      input[head] = { ...base, [key]: value };
    } else {
      input[head] = value;
    }
  }
  if (Object.keys(associations).length > 0) input.associations = associations;
  // `native` only when there is any: most systems have no native-only values.
  return Object.keys(native).length > 0 ? { input, custom, native } : { input, custom };
}

/** A store validation error, renamed to the native field that carried the bad value (one the body has, if several cover it). */
function nativeError(object: NativeObject, error: ApiError, body: NativeFields): FieldError {
  const issues = error.metadata?.issues as FieldIssue[] | undefined;
  const issue = issues?.[0];
  if (!issue) return new FieldError(undefined, error.message, 'value');
  const path = issue.field.replace(/\[\d+\]/g, '');
  const covering = object.fields.filter((candidate) => candidate.covers.some((cover) => path === cover || path.startsWith(`${cover}.`)));
  const field = covering.find((candidate) => candidate.native in body) ?? covering[0];
  const kind: ErrorKind =
    path === '' ? 'body' : path.startsWith('associations.') ? 'reference' : /^must be an? \w+, got /.test(issue.message) ? 'type' : 'value';
  return new FieldError(field?.native, field ? `${field.native} ${issue.message}` : error.message, kind);
}

/** Runs a store write, turning its validation errors into native ones (the sandbox's own caps stay the service's errors). */
function storeWrite<T>(object: NativeObject, body: NativeFields, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ApiError && error.errorCode === ErrorCode.INVALID_FIELD_VALUE) throw nativeError(object, error, body);
    throw error;
  }
}

/** Creates a record from a native body; custom fields go to `extra.custom`, native-only values to `extra.native`. */
export function createRecord(object: NativeObject, body: NativeFields, policy: WritePolicy, context: DownstreamContext): Found {
  const { input, custom, native } = translate(object, body, policy, context);
  const extra = native ? { custom, native } : { custom };
  const record = storeWrite(object, body, () => context.data.create(object.type, input, extra));
  return { object, entry: context.data.crm[object.type].entry(record.id)! };
}

/** Updates a record from a native body; custom fields and native-only values sent are merged into its extras. */
export function updateRecord(found: Found, body: NativeFields, policy: WritePolicy, context: DownstreamContext): Found {
  const { object, entry } = found;
  const { input, custom, native } = translate(object, body, policy, context, entry.record);
  const changed = {
    ...(Object.keys(custom).length > 0 ? { custom: { ...customOf(entry.extra), ...custom } } : {}),
    ...(native ? { native: { ...nativeOf(entry.extra), ...native } } : {}),
  };
  const extra = Object.keys(changed).length > 0 ? { ...entry.extra, ...changed } : undefined;
  storeWrite(object, body, () => context.data.update(object.type, entry.record.id, input, extra));
  return found;
}

export function deleteRecord(found: Found, context: DownstreamContext): void {
  context.data.delete(found.object.type, found.entry.record.id);
}

/** A short display name for a record: what a lookup field shows next to the id. */
export function displayName(record: CrmRecord): string | null {
  const r = record as unknown as Record<string, unknown>;
  if (typeof r.name === 'string') return r.name;
  const person = [r.firstName, r.lastName].filter((part) => typeof part === 'string' && part !== '').join(' ');
  if (person) return person;
  for (const key of ['subject', 'email', 'content']) if (typeof r[key] === 'string') return r[key] as string;
  return null;
}
