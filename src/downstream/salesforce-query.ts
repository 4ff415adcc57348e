import { childRelationship, fieldType, isNumberType, isPolymorphic, isStringType, referenceField, REFERENCES } from './salesforce-describe.js';
import { fieldsOf, type Condition, type Soql, type SoqlValue } from './salesforce-soql.js';
import { FieldError, type Flat } from './rest-engine.js';
import type { DownstreamContext } from './types.js';

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
  ofId(nativeId: string, context: DownstreamContext): { name: string; row: Flat } | undefined;
  /** The columns of an sObject, custom fields included. */
  columns(name: string): string[];
  /** Records `start` to `end` of an sObject, in store order, rendered (with `attributes`); all of them without bounds. */
  rows(name: string, context: DownstreamContext, start?: number, end?: number): Flat[];
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
      if (!column) throw invalidField(`No such column '${part}' on entity '${objects[0]}'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name.`);
      steps.push(column);
      display.push(column);
      return { steps, display, column };
    }
    const reference = referenceField(part);
    if (!reference || !objects.some((name) => schema.columns(name).includes(reference))) {
      throw invalidField(`Didn't understand relationship '${part}' in field path. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name.`);
    }
    steps.push(reference);
    display.push(reference.slice(0, -2));
    objects = [...REFERENCES[reference]!];
  }
  throw invalidField(`No such column '${written}'`);
}

/** The row a path's parent steps land on (or null), and the value at its end. */
function follow(schema: QuerySchema, row: Flat, path: Path, context: DownstreamContext): unknown {
  let current: Flat | null = row;
  for (const step of path.steps.slice(0, -1)) {
    const id: unknown = current[step];
    current = typeof id === 'string' ? (schema.ofId(id, context)?.row ?? null) : null;
    if (!current) return null;
  }
  return current[path.column] ?? null;
}

/** Selected columns and parent fields, nested as Salesforce nests them (`Account: { attributes, Name }`; null without a parent). */
function select(schema: QuerySchema, row: Flat, paths: Path[], context: DownstreamContext): Flat {
  const out: Flat = { attributes: row.attributes };
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
      target = target[key] as Flat;
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

/** -1, 0 or 1; NaN when the two do not compare. */
function compareTo(actual: unknown, literal: SoqlValue, now: number): number {
  if (literal.kind === 'null') return Number.NaN;
  if (literal.kind === 'dateLiteral') {
    const t = instant(actual);
    const [start, end] = literalRange(literal, now);
    return Number.isNaN(t) ? Number.NaN : t < start ? -1 : t >= end ? 1 : 0;
  }
  if (literal.kind === 'date' || literal.kind === 'datetime') {
    const t = instant(actual);
    const u = instant(literal.value);
    return Number.isNaN(t) || Number.isNaN(u) ? Number.NaN : Math.sign(t - u);
  }
  if (literal.kind === 'number') return typeof actual === 'number' ? Math.sign(actual - literal.value) : Number.NaN;
  if (literal.kind === 'boolean') return actual === literal.value ? 0 : Number.NaN;
  const a = String(actual).toLowerCase();
  const b = literal.value.toLowerCase();
  return a === b ? 0 : a < b ? -1 : 1;
}

/** A LIKE pattern (`%` any run, `_` one character) as a case-insensitive RegExp. */
function likePattern(pattern: string): RegExp {
  const source = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.');
  return new RegExp(`^${source}$`, 'is');
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

type Compiled = (row: Flat) => boolean;

function compile(schema: QuerySchema, from: string, condition: Condition, context: DownstreamContext): Compiled {
  if (condition.kind === 'not') {
    const part = compile(schema, from, condition.part, context);
    return (row) => !part(row);
  }
  if (condition.kind !== 'compare') {
    const parts = condition.parts.map((part) => compile(schema, from, part, context));
    return condition.kind === 'and' ? (row) => parts.every((part) => part(row)) : (row) => parts.some((part) => part(row));
  }
  const path = resolvePath(schema, from, condition.field);
  const literals = Array.isArray(condition.value) ? condition.value : [condition.value];
  for (const literal of literals) checkLiteral(path.column, literal);
  const { op } = condition;
  // Only date literals (TODAY, LAST_N_DAYS:n) need the time; reading it marks the answer as time-dependent.
  const now = literals.some((literal) => literal.kind === 'dateLiteral') ? context.now : 0;
  const pattern = op === 'LIKE' ? likePattern((literals[0] as { value: string }).value) : undefined;
  return (row) => {
    const actual = follow(schema, row, path, context);
    const isNull = actual === null || actual === undefined;
    if (op === 'IN' || op === 'NOT IN') {
      const hit = !isNull && literals.some((literal) => compareTo(actual, literal, now) === 0);
      return op === 'IN' ? hit : !hit;
    }
    const literal = literals[0]!;
    if (literal.kind === 'null') return op === '=' ? isNull : op === '!=' ? !isNull : false;
    if (op === '!=') return isNull || compareTo(actual, literal, now) !== 0;
    if (isNull) return false;
    if (op === 'LIKE') return typeof actual === 'string' && pattern!.test(actual);
    const c = compareTo(actual, literal, now);
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
  records: Flat[];
  /** The Id of each record's row, whether selected or not (for child subqueries). */
  ids?: unknown[];
}

/**
 * Runs a query and answers the batch starting at `skip`. Child subqueries
 * (`(SELECT LastName FROM Contacts)`) answer under the relationship name, per parent record, as
 * `{ totalSize, done, records }`, or null when it has no children.
 */
export function runSoql(schema: QuerySchema, soql: Soql, context: DownstreamContext, skip: number): QueryAnswer {
  const object = schema.object(soql.from);
  if (!object || !soql.subqueries) return runParent(schema, soql, context, skip);
  const children = soql.subqueries.map((sub) => {
    const relation = childRelationship(object.name, sub.relationship);
    if (!relation) {
      throw new FieldError('q', `Didn't understand relationship '${sub.relationship}' in FROM part of query call. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name.`, 'unknown', 'INVALID_TYPE');
    }
    // All the children at once, grouped by parent: one scan per subquery, not per parent.
    const answer = runRows(schema, { ...sub.query, from: relation.childSObject, limit: undefined, offset: undefined }, context);
    const byParent = new Map<string, Flat[]>();
    for (const { row, selected } of answer) {
      const parentId = row[relation.field];
      if (typeof parentId !== 'string') continue;
      const list = byParent.get(parentId) ?? [];
      list.push(selected);
      byParent.set(parentId, list);
    }
    return { name: relation.name, byParent, limit: sub.query.limit };
  });
  const answer = runParent(schema, soql, context, skip);
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
function runRows(schema: QuerySchema, soql: Soql, context: DownstreamContext): Array<{ row: Flat; selected: Flat }> {
  const object = schema.object(soql.from)!;
  const selected = soql.fields.map((written) => resolvePath(schema, object.name, written));
  for (const written of fieldsOf(soql)) resolvePath(schema, object.name, written);
  let rows = schema.rows(object.name, context);
  if (soql.where) rows = rows.filter(compile(schema, object.name, soql.where, context));
  rows = orderRows(schema, object.name, rows, soql, context);
  return rows.map((row) => ({ row, selected: select(schema, row, selected, context) }));
}

function orderRows(schema: QuerySchema, from: string, rows: Flat[], soql: Soql, context: DownstreamContext): Flat[] {
  if (soql.orderBy.length === 0) return rows;
  const keys = soql.orderBy.map((item) => ({ item, path: resolvePath(schema, from, item.field) }));
  const decorated = rows.map((row, index) => ({ row, index, values: keys.map(({ path }) => follow(schema, row, path, context)) }));
  decorated.sort((a, b) => {
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
  return decorated.map(({ row }) => row);
}

function runParent(schema: QuerySchema, soql: Soql, context: DownstreamContext, skip: number): QueryAnswer {
  const object = schema.object(soql.from);
  if (!object) throw new FieldError('q', `sObject type '${soql.from}' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name.`, 'unknown', 'INVALID_TYPE');
  for (const written of fieldsOf(soql)) resolvePath(schema, object.name, written);
  const selected = soql.fields.map((written) => resolvePath(schema, object.name, written));
  const offset = soql.offset ?? 0;
  const end = soql.limit === undefined ? undefined : offset + soql.limit;
  if (!soql.where && soql.orderBy.length === 0) {
    // No filter and no sort: the answer is a window of the store, so only that window is rendered.
    const total = Math.max(0, Math.min(end ?? Number.MAX_SAFE_INTEGER, schema.count(object.name, context)) - offset);
    if (soql.count) return { totalSize: total, done: true, records: [] };
    const batch = schema.rows(object.name, context, offset + skip, offset + Math.min(total, skip + QUERY_BATCH));
    const done = skip + batch.length >= total;
    return {
      totalSize: total,
      done,
      ...(done ? {} : { next: skip + QUERY_BATCH }),
      records: batch.map((row) => select(schema, row, selected, context)),
      ids: batch.map((row) => row.Id),
    };
  }
  let rows = schema.rows(object.name, context);
  if (soql.where) {
    const test = compile(schema, object.name, soql.where, context);
    rows = rows.filter(test);
  }
  rows = orderRows(schema, object.name, rows, soql, context);
  rows = rows.slice(offset, end);
  if (soql.count) return { totalSize: rows.length, done: true, records: [] };
  const batch = rows.slice(skip, skip + QUERY_BATCH);
  const done = skip + batch.length >= rows.length;
  return {
    totalSize: rows.length,
    done,
    ...(done ? {} : { next: skip + QUERY_BATCH }),
    records: batch.map((row) => select(schema, row, selected, context)),
    ids: batch.map((row) => row.Id),
  };
}
