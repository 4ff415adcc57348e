import type { Pieces } from '../../shared/pieces.js';
import { wildcardMatcher } from '../../shared/wildcard.js';
import { FieldError, isPlainObject, type NativeFields } from '../rest-engine.js';
import { collectInPieces, sortInPieces } from '../walk-in-pieces.js';

/**
 * HubSpot's CRM search body (`POST crm/v3/objects/{type}/search`): filter groups ORed, filters
 * in a group ANDed, one sort, a free-text `query`, `properties`, `limit` and `after`.
 * https://developers.hubspot.com/docs/api/crm/search
 */

export const SEARCH_OPERATORS = [
  'EQ',
  'NEQ',
  'LT',
  'LTE',
  'GT',
  'GTE',
  'BETWEEN',
  'IN',
  'NOT_IN',
  'HAS_PROPERTY',
  'NOT_HAS_PROPERTY',
  'CONTAINS_TOKEN',
  'NOT_CONTAINS_TOKEN',
] as const;
export type SearchOperator = (typeof SEARCH_OPERATORS)[number];

export interface SearchFilter {
  propertyName: string;
  operator: SearchOperator;
  value?: string;
  highValue?: string;
  values?: string[];
}

export interface SearchRequest {
  groups: SearchFilter[][];
  sort?: { propertyName: string; descending: boolean };
  query?: string;
  properties?: string[];
  limit: number;
  after: number;
}

/**
 * The documented limits: 5 groups, 6 filters a group, 18 in all; 200 results a page; no paging
 * past 10,000 results (the search guide); a `query` of at most 3000 characters (the search
 * endpoints' OpenAPI spec: "The search query string, up to 3000 characters").
 */
export const SEARCH_LIMITS = { groups: 5, filtersPerGroup: 6, filters: 18, pageSize: 200, defaultPageSize: 10, results: 10_000, queryLength: 3000 } as const;

const bad = (field: string, message: string) => new FieldError(field, message, 'body');
const asText = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;

function parseFilter(raw: unknown, where: string, isProperty: (name: string) => boolean): SearchFilter {
  if (!isPlainObject(raw)) throw bad(where, `${where} must be an object`);
  const propertyName = raw.propertyName;
  if (typeof propertyName !== 'string' || propertyName === '') throw bad(`${where}.propertyName`, `${where}.propertyName is required`);
  if (!isProperty(propertyName)) throw new FieldError(propertyName, `Property "${propertyName}" does not exist`, 'unknown');
  const operator = raw.operator ?? 'EQ';
  if (!(SEARCH_OPERATORS as readonly unknown[]).includes(operator)) {
    throw bad(`${where}.operator`, `${where}.operator must be one of ${SEARCH_OPERATORS.join(', ')}, got ${JSON.stringify(operator)}`);
  }
  const filter: SearchFilter = { propertyName, operator: operator as SearchOperator };
  const value = asText(raw.value);
  if (value !== undefined) filter.value = value;
  const highValue = asText(raw.highValue);
  if (highValue !== undefined) filter.highValue = highValue;
  if (raw.values !== undefined) {
    if (!Array.isArray(raw.values)) throw bad(`${where}.values`, `${where}.values must be an array`);
    filter.values = raw.values.map((item) => asText(item) ?? '');
  }
  const needs = (what: keyof SearchFilter) => {
    if (filter[what] === undefined) throw bad(`${where}.${what}`, `${where}.${what} is required for operator ${filter.operator}`);
  };
  if (filter.operator === 'IN' || filter.operator === 'NOT_IN') needs('values');
  else if (filter.operator === 'BETWEEN') {
    needs('value');
    needs('highValue');
  } else if (filter.operator !== 'HAS_PROPERTY' && filter.operator !== 'NOT_HAS_PROPERTY') needs('value');
  return filter;
}

/** Reads and checks a search body; a FieldError names what is wrong. */
export function parseSearch(body: unknown, isProperty: (name: string) => boolean): SearchRequest {
  const input = body === undefined || body === null ? {} : body;
  if (!isPlainObject(input)) throw bad('body', 'Invalid input JSON: the search body must be an object');
  const rawGroups = input.filterGroups ?? [];
  if (!Array.isArray(rawGroups)) throw bad('filterGroups', 'filterGroups must be an array');
  if (rawGroups.length > SEARCH_LIMITS.groups) throw bad('filterGroups', `at most ${SEARCH_LIMITS.groups} filterGroups are allowed, got ${rawGroups.length}`);
  const groups = rawGroups.map((group, i) => {
    const filters = isPlainObject(group) ? group.filters : undefined;
    if (!Array.isArray(filters)) throw bad(`filterGroups[${i}].filters`, `filterGroups[${i}].filters must be an array`);
    if (filters.length > SEARCH_LIMITS.filtersPerGroup) {
      throw bad(`filterGroups[${i}].filters`, `at most ${SEARCH_LIMITS.filtersPerGroup} filters are allowed in a group, got ${filters.length}`);
    }
    return filters.map((filter, j) => parseFilter(filter, `filterGroups[${i}].filters[${j}]`, isProperty));
  });
  const total = groups.reduce((sum, group) => sum + group.length, 0);
  if (total > SEARCH_LIMITS.filters) throw bad('filterGroups', `at most ${SEARCH_LIMITS.filters} filters are allowed in all, got ${total}`);

  const out: SearchRequest = { groups, limit: SEARCH_LIMITS.defaultPageSize, after: 0 };
  const sorts = input.sorts ?? [];
  if (!Array.isArray(sorts)) throw bad('sorts', 'sorts must be an array');
  if (sorts.length > 1) throw bad('sorts', 'only one sort is allowed');
  const sort = sorts[0];
  if (typeof sort === 'string') {
    const descending = sort.startsWith('-');
    out.sort = { propertyName: descending ? sort.slice(1) : sort, descending };
  } else if (isPlainObject(sort)) {
    if (typeof sort.propertyName !== 'string') throw bad('sorts[0].propertyName', 'sorts[0].propertyName is required');
    if (sort.direction !== undefined && sort.direction !== 'ASCENDING' && sort.direction !== 'DESCENDING') {
      throw bad('sorts[0].direction', `sorts[0].direction must be ASCENDING or DESCENDING, got ${JSON.stringify(sort.direction)}`);
    }
    out.sort = { propertyName: sort.propertyName, descending: sort.direction === 'DESCENDING' };
  } else if (sort !== undefined) {
    throw bad('sorts[0]', 'sorts[0] must be a property name or { propertyName, direction }');
  }
  if (out.sort && !isProperty(out.sort.propertyName))
    throw new FieldError(out.sort.propertyName, `Property "${out.sort.propertyName}" does not exist`, 'unknown');
  if (input.query !== undefined) {
    if (typeof input.query !== 'string') throw bad('query', 'query must be a string');
    if (input.query.length > SEARCH_LIMITS.queryLength)
      throw bad('query', `query must be at most ${SEARCH_LIMITS.queryLength} characters, got ${input.query.length}`);
    out.query = input.query;
  }
  if (input.properties !== undefined) {
    if (!Array.isArray(input.properties) || input.properties.some((name) => typeof name !== 'string'))
      throw bad('properties', 'properties must be an array of strings');
    out.properties = input.properties as string[];
  }
  out.limit = pageNumber(input.limit, 'limit', SEARCH_LIMITS.defaultPageSize, 1);
  out.limit = Math.min(out.limit, SEARCH_LIMITS.pageSize);
  out.after = pageNumber(input.after, 'after', 0, 0);
  if (out.after >= SEARCH_LIMITS.results) throw bad('after', `a search cannot page beyond ${SEARCH_LIMITS.results} results, got after=${out.after}`);
  return out;
}

function pageNumber(value: unknown, name: string, fallback: number, min: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < min) throw bad(name, `${name} must be an integer of at least ${min}, got ${JSON.stringify(value)}`);
  return n;
}

const ISO = /^\d{4}-\d{2}-\d{2}T/;

/** A filter value with what comparing takes worked out once, not once a row. */
interface Operand {
  /** As an instant: epoch ms, or an ISO date parsed. */
  instant: number;
  number: number;
  blank: boolean;
  lower: string;
}

function operand(value: string): Operand {
  return { instant: /^\d+$/.test(value) ? Number(value) : Date.parse(value), number: Number(value), blank: value.trim() === '', lower: value.toLowerCase() };
}

/**
 * A property value compared with a filter value as HubSpot does: date-times by instant (a
 * filter may give epoch ms or ISO), numbers as numbers, text case-insensitively.
 */
function compare(property: unknown, right: Operand): number {
  const left = String(property);
  if (ISO.test(left)) {
    const l = Date.parse(left);
    if (!Number.isNaN(right.instant)) return l === right.instant ? 0 : l < right.instant ? -1 : 1;
  }
  const ln = Number(left);
  if (left.trim() !== '' && !right.blank && Number.isFinite(ln) && Number.isFinite(right.number)) return ln === right.number ? 0 : ln < right.number ? -1 : 1;
  const a = left.toLowerCase();
  return a === right.lower ? 0 : a < right.lower ? -1 : 1;
}

/** IN: whether `compare` says 0 for one of the values, in a few lookups however many values there are. */
function oneOf(values: readonly string[]): (property: unknown) => boolean {
  const instants = new Set<number>();
  const numbers = new Set<number>();
  const textsOfNonInstants = new Set<string>();
  const textsOfNonNumbers = new Set<string>();
  const texts = new Set<string>();
  for (const value of values.map(operand)) {
    if (Number.isNaN(value.instant)) textsOfNonInstants.add(value.lower);
    else instants.add(value.instant);
    if (!value.blank && Number.isFinite(value.number)) numbers.add(value.number);
    else textsOfNonNumbers.add(value.lower);
    texts.add(value.lower);
  }
  return (property) => {
    const left = String(property);
    // As compare: an ISO date-time meets the values that are instants by instant and the others as text...
    if (ISO.test(left)) return instants.has(Date.parse(left)) || textsOfNonInstants.has(left.toLowerCase());
    // ...a number meets the numeric values as numbers and the others as text, and other text meets them all as text.
    const ln = Number(left);
    if (left.trim() !== '' && Number.isFinite(ln)) return numbers.has(ln) || textsOfNonNumbers.has(left.toLowerCase());
    return texts.has(left.toLowerCase());
  };
}

/** CONTAINS_TOKEN: a whole word of the value, or the whole value (or a word of it) against a `*` wildcard pattern. */
function tokenMatcher(token: string): (property: unknown) => boolean {
  const want = token.toLowerCase();
  if (want.includes('*')) {
    const matches = wildcardMatcher(want, { any: '*', withinLines: true });
    return (property) => {
      const text = String(property).toLowerCase();
      return matches(text) || text.split(/\s+/).some(matches);
    };
  }
  return (property) => {
    const text = String(property).toLowerCase();
    return text.split(/[\s,;]+/).includes(want) || text === want;
  };
}

const isSet = (value: unknown) => value !== null && value !== undefined && value !== '';

/** One filter as a test of a record's properties, its values worked out once for all the records. */
function filterTest(filter: SearchFilter): (properties: NativeFields) => boolean {
  const name = filter.propertyName;
  const value = filter.value === undefined ? undefined : operand(filter.value);
  const high = filter.highValue === undefined ? undefined : operand(filter.highValue);
  switch (filter.operator) {
    case 'HAS_PROPERTY':
      return (properties) => isSet(properties[name]);
    case 'NOT_HAS_PROPERTY':
      return (properties) => !isSet(properties[name]);
    case 'NEQ':
      return (properties) => !isSet(properties[name]) || compare(properties[name], value!) !== 0;
    case 'NOT_IN': {
      const within = oneOf(filter.values!);
      return (properties) => !isSet(properties[name]) || !within(properties[name]);
    }
    case 'NOT_CONTAINS_TOKEN': {
      const contains = tokenMatcher(filter.value!);
      return (properties) => !isSet(properties[name]) || !contains(properties[name]);
    }
    case 'EQ':
      return (properties) => isSet(properties[name]) && compare(properties[name], value!) === 0;
    case 'LT':
      return (properties) => isSet(properties[name]) && compare(properties[name], value!) < 0;
    case 'LTE':
      return (properties) => isSet(properties[name]) && compare(properties[name], value!) <= 0;
    case 'GT':
      return (properties) => isSet(properties[name]) && compare(properties[name], value!) > 0;
    case 'GTE':
      return (properties) => isSet(properties[name]) && compare(properties[name], value!) >= 0;
    case 'BETWEEN':
      return (properties) => isSet(properties[name]) && compare(properties[name], value!) >= 0 && compare(properties[name], high!) <= 0;
    case 'IN': {
      const within = oneOf(filter.values!);
      return (properties) => isSet(properties[name]) && within(properties[name]);
    }
    case 'CONTAINS_TOKEN': {
      const contains = tokenMatcher(filter.value!);
      return (properties) => isSet(properties[name]) && contains(properties[name]);
    }
    default:
      return () => false;
  }
}

/** The filter groups as one test: no groups match everything; otherwise any group whose filters all match. */
export function groupsTest(groups: SearchFilter[][]): (properties: NativeFields) => boolean {
  if (groups.length === 0) return () => true;
  const tests = groups.map((group) => group.map(filterTest));
  return (properties) => tests.some((group) => group.every((test) => test(properties)));
}

/** The free-text `query` as a test: a word of one of the object's default searchable properties starts with it. */
export function queryTest(searchable: readonly string[], query: string): (properties: NativeFields) => boolean {
  const want = query.trim().toLowerCase();
  if (want === '') return () => true;
  return (properties) =>
    searchable.some((name) => {
      const value = properties[name];
      if (!isSet(value)) return false;
      const text = String(value).toLowerCase();
      return text.startsWith(want) || text.split(/[\s@.,;:/-]+/).some((word) => word.startsWith(want));
    });
}

/** Sorts by one property; records without it come last either way, ties keep store order. A long list in pieces. */
export function* sortBy<T>(items: T[], propertiesOf: (item: T) => NativeFields, sort: SearchRequest['sort']): Pieces<T[]> {
  if (!sort) return items;
  const sign = sort.descending ? -1 : 1;
  let index = 0;
  const decorated = yield* collectInPieces(items, (item) => {
    const value = propertiesOf(item)[sort.propertyName];
    return { item, index: index++, value, operand: isSet(value) ? operand(String(value)) : undefined };
  });
  const ordered = yield* sortInPieces(decorated, (a, b) => {
    if (!a.operand || !b.operand) return !a.operand === !b.operand ? a.index - b.index : a.operand ? -1 : 1;
    return sign * compare(a.value, b.operand) || a.index - b.index;
  });
  return ordered.map(({ item }) => item);
}
