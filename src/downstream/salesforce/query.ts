import type { CrmRecord } from '../../model/crm.js';
import type { Pieces } from '../../shared/pieces.js';
import { wildcardMatcher } from '../../shared/wildcard.js';
import { FieldError, type NativeFields } from '../rest-engine.js';
import type { DownstreamContext } from '../types.js';
import { collectInPieces, sortInPieces } from '../walk-in-pieces.js';
import { childRelationship, fieldType, isNumberType, isPolymorphic, isStringType, REFERENCES, referenceField } from './describe.js';
import { type Condition, fieldsOf, type OrderItem, type Soql, type SoqlValue } from './soql.js';

/**
 * Runs a parsed SOQL query over the connection's records: filters, sorts, windows, and selects
 * columns and parent relationship fields, as the query resource answers.
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_query.htm
 */

/** What the query engine needs to know of the simulated sObjects. */
export interface QuerySchema {
  /** The sObject of a name, case-insensitively. */
  object(name: string): { name: string } | undefined;
  /** The sObject an id belongs to, by its key prefix. */
  ofId(nativeId: string, context: DownstreamContext): { name: string; row: NativeFields } | undefined;
  /** The columns of an sObject, custom fields included. */
  columns(name: string): string[];
  /** Records `start` to `end` of an sObject, in store order, rendered (with `attributes`): a batch of up to 2,000, in pieces. */
  rows(name: string, context: DownstreamContext, start: number, end: number): Pieces<NativeFields[]>;
  /** Every record of an sObject that passes `test` (all without one), in store order, rendered: a walk in pieces. */
  passing(name: string, context: DownstreamContext, test: ((row: NativeFields) => boolean) | undefined): Pieces<NativeFields[]>;
  /** How many records an sObject has. */
  count(name: string, context: DownstreamContext): number;
}

/** The largest batch the query resource hands out at once. */
export const QUERY_BATCH = 2000;

const invalidField = (message: string) => new FieldError('q', message, 'unknown', 'INVALID_FIELD');

/** A path resolved statically: the column (with its exact case) at each step, and the sObjects it may land on. */
interface Path {
  /** `['AccountId', 'Name']` for `Account.Name`: the reference fields to follow, then the column. */
  steps: string[];
  /** As the answer shows it: `['Account', 'Name']`. */
  display: string[];
  column: string;
}

function resolvePath(schema: QuerySchema, from: string, written: string): Path {
  const parts = written.split('.');
  let objects = [from];
  const steps: string[] = [];
  const display: string[] = [];
  for (const [i, part] of parts.entries()) {
    const last = i === parts.length - 1;
    if (last) {
      const column = objects.map((name) => schema.columns(name).find((candidate) => candidate.toLowerCase() === part.toLowerCase())).find(Boolean);
      if (!column)
        throw invalidField(
          `No such column '${part}' on entity '${objects[0]}'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name.`,
        );
      steps.push(column);
      display.push(column);
      return { steps, display, column };
    }
    const reference = referenceField(part);
    if (!reference || !objects.some((name) => schema.columns(name).includes(reference))) {
      throw invalidField(
        `Didn't understand relationship '${part}' in field path. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name.`,
      );
    }
    steps.push(reference);
    display.push(reference.slice(0, -2));
    objects = [...REFERENCES[reference]!];
  }
  throw invalidField(`No such column '${written}'`);
}

/** The selected fields, resolved: Salesforce refuses a field selected twice, however it is spelled. */
function selectedPaths(schema: QuerySchema, from: string, fields: string[]): Path[] {
  const seen = new Set<string>();
  return fields.map((written) => {
    const path = resolvePath(schema, from, written);
    const key = path.steps.join('.');
    if (seen.has(key)) throw new FieldError('q', `duplicate field selected: ${written.split('.').at(-1)}`, 'param', 'MALFORMED_QUERY');
    seen.add(key);
    return path;
  });
}

/** The row a path's parent steps land on (or null), and the value at its end. */
function follow(schema: QuerySchema, row: NativeFields, path: Path, context: DownstreamContext): unknown {
  let current: NativeFields | null = row;
  for (let i = 0; i < path.steps.length - 1; i++) {
    const id: unknown = current[path.steps[i]!];
    current = typeof id === 'string' ? (schema.ofId(id, context)?.row ?? null) : null;
    if (!current) return null;
  }
  return current[path.column] ?? null;
}

/** Selected columns and parent fields, nested as Salesforce nests them (`Account: { attributes, Name }`; null without a parent). */
function select(schema: QuerySchema, row: NativeFields, paths: Path[], context: DownstreamContext): NativeFields {
  const out: NativeFields = { attributes: row.attributes };
  for (const path of paths) {
    let target = out;
    let source = row;
    let reached = true;
    for (let i = 0; i < path.steps.length - 1; i++) {
      const key = path.display[i]!;
      const id = source[path.steps[i]!];
      const parent = typeof id === 'string' ? schema.ofId(id, context) : undefined;
      if (!parent) {
        if (target[key] === undefined) target[key] = null;
        reached = false;
        break;
      }
      if (target[key] === undefined || target[key] === null) {
        // A polymorphic parent (Who, What) shows as type Name, with the url of the record it is.
        const type = isPolymorphic(path.steps[i]!) ? 'Name' : parent.name;
        target[key] = { attributes: { type, url: (parent.row.attributes as { url: string }).url } };
      }
      target = target[key] as NativeFields;
      source = parent.row;
    }
    if (reached) target[path.column] = source[path.column] ?? null;
  }
  return out;
}

// --- Comparison -----------------------------------------------------------------------------

const DAY = 86_400_000;

/** A Salesforce date or date-time value as ms. */
function instant(value: unknown): number {
  if (typeof value !== 'string') return Number.NaN;
  return Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
}

/** A date literal's range [start, end) around `now`, UTC. */
function literalRange(value: Extract<SoqlValue, { kind: 'dateLiteral' }>, now: number): [number, number] {
  const today = Math.floor(now / DAY) * DAY;
  const date = new Date(today);
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth();
  const month = (offset: number): [number, number] => [Date.UTC(y, m + offset, 1), Date.UTC(y, m + offset + 1, 1)];
  const year = (offset: number): [number, number] => [Date.UTC(y + offset, 0, 1), Date.UTC(y + offset + 1, 0, 1)];
  const week = (offset: number): [number, number] => {
    const start = today - date.getUTCDay() * DAY + offset * 7 * DAY;
    return [start, start + 7 * DAY];
  };
  switch (value.name) {
    case 'YESTERDAY':
      return [today - DAY, today];
    case 'TOMORROW':
      return [today + DAY, today + 2 * DAY];
    case 'LAST_N_DAYS':
      return [today - value.n! * DAY, today + DAY];
    case 'NEXT_N_DAYS':
      return [today + DAY, today + (value.n! + 1) * DAY];
    case 'LAST_WEEK':
      return week(-1);
    case 'THIS_WEEK':
      return week(0);
    case 'NEXT_WEEK':
      return week(1);
    case 'LAST_MONTH':
      return month(-1);
    case 'THIS_MONTH':
      return month(0);
    case 'NEXT_MONTH':
      return month(1);
    case 'LAST_YEAR':
      return year(-1);
    case 'THIS_YEAR':
      return year(0);
    case 'NEXT_YEAR':
      return year(1);
    default:
      return [today, today + DAY];
  }
}

/** How a value compares with a literal: -1, 0 or 1, NaN when the two do not compare. What the literal alone decides is worked out once. */
function comparison(literal: SoqlValue, now: number): (actual: unknown) => number {
  switch (literal.kind) {
    case 'null':
      return () => Number.NaN;
    case 'dateLiteral': {
      const [start, end] = literalRange(literal, now);
      return (actual) => {
        const t = instant(actual);
        return Number.isNaN(t) ? Number.NaN : t < start ? -1 : t >= end ? 1 : 0;
      };
    }
    case 'date':
    case 'datetime': {
      const u = instant(literal.value);
      return (actual) => {
        const t = instant(actual);
        return Number.isNaN(t) || Number.isNaN(u) ? Number.NaN : Math.sign(t - u);
      };
    }
    case 'number':
      return (actual) => (typeof actual === 'number' ? Math.sign(actual - literal.value) : Number.NaN);
    case 'boolean':
      return (actual) => (actual === literal.value ? 0 : Number.NaN);
    default: {
      const b = literal.value.toLowerCase();
      return (actual) => {
        const a = String(actual).toLowerCase();
        return a === b ? 0 : a < b ? -1 : 1;
      };
    }
  }
}

/**
 * Whether a value equals one of a list's literals (as `comparison` would say 0 for one of them),
 * in one lookup: a list may hold thousands of literals, and every row is tested against it.
 */
function membership(literals: SoqlValue[], now: number): (actual: unknown) => boolean {
  const texts = new Set<string>();
  const numbers = new Set<number>();
  const booleans = new Set<boolean>();
  const instants = new Set<number>();
  const ranges: Array<[number, number]> = [];
  for (const literal of literals) {
    if (literal.kind === 'string') texts.add(literal.value.toLowerCase());
    else if (literal.kind === 'number' && Number.isFinite(literal.value)) numbers.add(literal.value);
    else if (literal.kind === 'boolean') booleans.add(literal.value);
    else if (literal.kind === 'date' || literal.kind === 'datetime') instants.add(instant(literal.value));
    else if (literal.kind === 'dateLiteral') ranges.push(literalRange(literal, now));
  }
  instants.delete(Number.NaN);
  const dated = instants.size > 0 || ranges.length > 0;
  return (actual) => {
    if (texts.size > 0 && texts.has(String(actual).toLowerCase())) return true;
    if (typeof actual === 'number') return numbers.has(actual);
    if (typeof actual === 'boolean') return booleans.has(actual);
    if (!dated) return false;
    const t = instant(actual);
    return instants.has(t) || ranges.some(([start, end]) => t >= start && t < end);
  };
}

/** Salesforce refuses a literal of the wrong kind for the field (a number for a text field, say). */
function checkLiteral(column: string, literal: SoqlValue): void {
  if (literal.kind === 'null') return;
  const type = fieldType(column);
  const quoted = literal.kind === 'string';
  const fits = isStringType(type)
    ? quoted
    : isNumberType(type)
      ? literal.kind === 'number'
      : type === 'boolean'
        ? literal.kind === 'boolean'
        : type === 'date'
          ? literal.kind === 'date' || literal.kind === 'dateLiteral'
          : type === 'datetime'
            ? literal.kind === 'datetime' || literal.kind === 'dateLiteral'
            : true;
  if (!fits) {
    throw invalidField(
      `value of filter criterion for field '${column}' must be of type ${type === 'int' || type === 'currency' || type === 'percent' ? 'double' : type} and ${isStringType(type) ? 'should be enclosed in quotes' : 'should not be enclosed in quotes'}`,
    );
  }
}

type Compiled = (row: NativeFields) => boolean;

/** `IN (…)` (or `NOT IN`): one lookup a row, however long the list. */
function inList(schema: QuerySchema, path: Path, literals: SoqlValue[], positive: boolean, context: DownstreamContext): Compiled {
  // Only date literals (TODAY, LAST_N_DAYS:n) need the time; reading it marks the answer as time-dependent.
  const within = membership(literals, literals.some((literal) => literal.kind === 'dateLiteral') ? context.now : 0);
  return (row) => {
    const actual = follow(schema, row, path, context);
    const hit = actual !== null && actual !== undefined && within(actual);
    return positive ? hit : !hit;
  };
}

/**
 * The parts of an AND or OR, each checked as written. `F = x OR F = y …` is `F IN (x, y …)` and
 * `F != x AND F != y …` is `F NOT IN (x, y …)`: such runs (a query builder's output) become one
 * lookup a row instead of one comparison per literal.
 */
function joined(schema: QuerySchema, from: string, condition: Extract<Condition, { kind: 'and' | 'or' }>, context: DownstreamContext): Compiled[] {
  const compiled = condition.parts.map((part) => compile(schema, from, part, context));
  const op = condition.kind === 'or' ? '=' : '!=';
  const lists = new Map<string, { path: Path; literals: SoqlValue[] }>();
  const rest: Compiled[] = [];
  condition.parts.forEach((part, i) => {
    if (part.kind !== 'compare' || part.op !== op || Array.isArray(part.value) || part.value.kind === 'null') {
      rest.push(compiled[i]!);
      return;
    }
    const path = resolvePath(schema, from, part.field);
    const key = path.steps.join('.');
    if (!lists.has(key)) lists.set(key, { path, literals: [] });
    lists.get(key)!.literals.push(part.value);
  });
  return [...[...lists.values()].map(({ path, literals }) => inList(schema, path, literals, op === '=', context)), ...rest];
}

function compile(schema: QuerySchema, from: string, condition: Condition, context: DownstreamContext): Compiled {
  if (condition.kind === 'not') {
    const part = compile(schema, from, condition.part, context);
    return (row) => !part(row);
  }
  if (condition.kind !== 'compare') {
    const parts = joined(schema, from, condition, context);
    return condition.kind === 'and' ? (row) => parts.every((part) => part(row)) : (row) => parts.some((part) => part(row));
  }
  const path = resolvePath(schema, from, condition.field);
  const literals = Array.isArray(condition.value) ? condition.value : [condition.value];
  for (const literal of literals) checkLiteral(path.column, literal);
  const { op } = condition;
  if (op === 'IN' || op === 'NOT IN') return inList(schema, path, literals, op === 'IN', context);
  // Only date literals (TODAY, LAST_N_DAYS:n) need the time; reading it marks the answer as time-dependent.
  const now = literals.some((literal) => literal.kind === 'dateLiteral') ? context.now : 0;
  const literal = literals[0]!;
  const pattern = literal as Extract<SoqlValue, { kind: 'string' }>;
  const like = op === 'LIKE' ? wildcardMatcher(pattern.value, { any: '%', one: '_', ignoreCase: true }, pattern.literalAt) : undefined;
  const compare = comparison(literal, now);
  return (row) => {
    const actual = follow(schema, row, path, context);
    const isNull = actual === null || actual === undefined;
    if (literal.kind === 'null') return op === '=' ? isNull : op === '!=' ? !isNull : false;
    if (op === '!=') return isNull || compare(actual) !== 0;
    if (isNull) return false;
    if (op === 'LIKE') return typeof actual === 'string' && like!(actual);
    const c = compare(actual);
    if (Number.isNaN(c)) return false;
    return op === '=' ? c === 0 : op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
  };
}

function sortValue(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a).toLowerCase();
  const y = String(b).toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

export interface QueryAnswer {
  totalSize: number;
  done: boolean;
  /** Where the next batch starts, when not done. */
  next?: number;
  records: NativeFields[];
  /** The Id of each record's row, whether selected or not (for child subqueries). */
  ids?: unknown[];
}

/**
 * Runs a query and answers the batch starting at `skip`. Child subqueries
 * (`(SELECT LastName FROM Contacts)`) answer under the relationship name, per parent record, as
 * `{ totalSize, done, records }`, or null when it has no children.
 */
/**
 * The parents a child row is listed under: its reference field's record; a note, under every
 * record it names (a note the unified API linked to an account, a contact, a deal and a lead is
 * one note on each of them, as Salesforce links a note to several records: decision 0044).
 */
function parentsOf(relation: { childSObject: string; field: string }, row: NativeFields, context: DownstreamContext): string[] {
  const parentId = row[relation.field];
  if (typeof parentId !== 'string') return [];
  if (relation.childSObject !== 'Note' || typeof row.Id !== 'string') return [parentId];
  const note = context.data.crm.Note.getByNativeId(row.Id)?.record as CrmRecord<'Note'> | undefined;
  if (!note) return [parentId];
  const { accountIds, contactIds, dealIds, leadIds } = note.associations;
  const linked = [
    ...accountIds.map((id) => context.data.crm.Account.get(id)),
    ...contactIds.map((id) => context.data.crm.Contact.get(id)),
    ...dealIds.map((id) => context.data.crm.Deal.get(id)),
    ...leadIds.map((id) => context.data.crm.Lead.get(id)),
  ].flatMap((record) => (record ? [record.nativeId] : []));
  return linked.length > 0 ? linked : [parentId];
}

export function* runSoql(schema: QuerySchema, soql: Soql, context: DownstreamContext, skip: number): Pieces<QueryAnswer> {
  const object = schema.object(soql.from);
  if (!object || !soql.subqueries) return yield* runParent(schema, soql, context, skip);
  const children: Array<{ name: string; byParent: Map<string, NativeFields[]>; limit: number | undefined }> = [];
  for (const sub of soql.subqueries) {
    const relation = childRelationship(object.name, sub.relationship);
    if (!relation) {
      throw new FieldError(
        'q',
        `Didn't understand relationship '${sub.relationship}' in FROM part of query call. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name.`,
        'unknown',
        'INVALID_TYPE',
      );
    }
    // All the children at once, grouped by parent: one scan per subquery, not per parent.
    const answer = yield* runRows(schema, { ...sub.query, from: relation.childSObject, limit: undefined, offset: undefined }, context);
    const byParent = new Map<string, NativeFields[]>();
    for (const { row, selected } of answer) {
      for (const parentId of parentsOf(relation, row, context)) {
        const list = byParent.get(parentId) ?? [];
        list.push(selected);
        byParent.set(parentId, list);
      }
    }
    children.push({ name: relation.name, byParent, limit: sub.query.limit });
  }
  const answer = yield* runParent(schema, soql, context, skip);
  if (children.length === 0) return answer;
  return {
    ...answer,
    records: answer.records.map((record, i) => {
      const out = { ...record };
      const id = answer.ids?.[i];
      for (const child of children) {
        const list = (typeof id === 'string' ? child.byParent.get(id) : undefined) ?? [];
        const records = child.limit === undefined ? list : list.slice(0, child.limit);
        out[child.name] = records.length === 0 ? null : { totalSize: records.length, done: true, records };
      }
      return out;
    }),
  };
}

/** Every row of a (child) query, filtered and sorted, with its selected form. */
function* runRows(schema: QuerySchema, soql: Soql, context: DownstreamContext): Pieces<Array<{ row: NativeFields; selected: NativeFields }>> {
  const object = schema.object(soql.from)!;
  const selected = selectedPaths(schema, object.name, soql.fields);
  for (const written of fieldsOf(soql)) resolvePath(schema, object.name, written);
  const test = soql.where ? compile(schema, object.name, soql.where, context) : undefined;
  const rows = yield* orderRows(schema, object.name, yield* schema.passing(object.name, context, test), soql, context);
  return rows.map((row) => ({ row, selected: select(schema, row, selected, context) }));
}

function* orderRows(schema: QuerySchema, from: string, rows: NativeFields[], soql: Soql, context: DownstreamContext): Pieces<NativeFields[]> {
  if (soql.orderBy.length === 0) return rows;
  // A field ordered by again never decides: the rows it would compare are equal on it already.
  const byPath = new Map<string, { item: OrderItem; path: Path }>();
  for (const item of soql.orderBy) {
    const path = resolvePath(schema, from, item.field);
    if (!byPath.has(path.steps.join('.'))) byPath.set(path.steps.join('.'), { item, path });
  }
  const keys = [...byPath.values()];
  let index = 0;
  const decorated = yield* collectInPieces(rows, (row) => ({ row, index: index++, values: keys.map(({ path }) => follow(schema, row, path, context)) }));
  const ordered = yield* sortInPieces(decorated, (a, b) => {
    for (const [i, { item }] of keys.entries()) {
      const x = a.values[i];
      const y = b.values[i];
      const xNull = x === null || x === undefined;
      const yNull = y === null || y === undefined;
      if (xNull || yNull) {
        if (xNull && yNull) continue;
        return (xNull ? -1 : 1) * (item.nullsLast ? -1 : 1);
      }
      const c = sortValue(x, y);
      if (c !== 0) return item.descending ? -c : c;
    }
    return a.index - b.index;
  });
  return ordered.map(({ row }) => row);
}

function* runParent(schema: QuerySchema, soql: Soql, context: DownstreamContext, skip: number): Pieces<QueryAnswer> {
  const object = schema.object(soql.from);
  if (!object)
    throw new FieldError(
      'q',
      `sObject type '${soql.from}' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name.`,
      'unknown',
      'INVALID_TYPE',
    );
  for (const written of fieldsOf(soql)) resolvePath(schema, object.name, written);
  const selected = selectedPaths(schema, object.name, soql.fields);
  const offset = soql.offset ?? 0;
  const end = soql.limit === undefined ? undefined : offset + soql.limit;
  if (!soql.where && soql.orderBy.length === 0) {
    // No filter and no sort: the answer is a window of the store, so only that window is rendered.
    const total = Math.max(0, Math.min(end ?? Number.MAX_SAFE_INTEGER, schema.count(object.name, context)) - offset);
    if (soql.count) return { totalSize: total, done: true, records: [] };
    const batch = yield* schema.rows(object.name, context, offset + skip, offset + Math.min(total, skip + QUERY_BATCH));
    const done = skip + batch.length >= total;
    return {
      totalSize: total,
      done,
      ...(done ? {} : { next: skip + QUERY_BATCH }),
      records: yield* selectInPieces(schema, batch, selected, context),
      ids: batch.map((row) => row.Id),
    };
  }
  const test = soql.where ? compile(schema, object.name, soql.where, context) : undefined;
  let rows = yield* orderRows(schema, object.name, yield* schema.passing(object.name, context, test), soql, context);
  rows = rows.slice(offset, end);
  if (soql.count) return { totalSize: rows.length, done: true, records: [] };
  const batch = rows.slice(skip, skip + QUERY_BATCH);
  const done = skip + batch.length >= rows.length;
  return {
    totalSize: rows.length,
    done,
    ...(done ? {} : { next: skip + QUERY_BATCH }),
    records: yield* selectInPieces(schema, batch, selected, context),
    ids: batch.map((row) => row.Id),
  };
}

/** The selected fields of a batch of rows (up to 2,000, relationship fields followed): in pieces. */
function selectInPieces(schema: QuerySchema, batch: NativeFields[], selected: Path[], context: DownstreamContext): Pieces<NativeFields[]> {
  return collectInPieces(batch, (row) => select(schema, row, selected, context));
}
