import { FieldError, isPlainObject, type Flat } from './rest-engine.js';

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

/** The documented limits: 5 groups, 6 filters a group, 18 in all; 200 results a page; no paging past 10,000 results. */
export const SEARCH_LIMITS = { groups: 5, filtersPerGroup: 6, filters: 18, pageSize: 200, defaultPageSize: 10, results: 10_000 } as const;

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
  else if (filter.operator === 'BETWEEN') (needs('value'), needs('highValue'));
  else if (filter.operator !== 'HAS_PROPERTY' && filter.operator !== 'NOT_HAS_PROPERTY') needs('value');
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
  if (out.sort && !isProperty(out.sort.propertyName)) throw new FieldError(out.sort.propertyName, `Property "${out.sort.propertyName}" does not exist`, 'unknown');
  if (input.query !== undefined) {
    if (typeof input.query !== 'string') throw bad('query', 'query must be a string');
    out.query = input.query;
  }
  if (input.properties !== undefined) {
    if (!Array.isArray(input.properties) || input.properties.some((name) => typeof name !== 'string')) throw bad('properties', 'properties must be an array of strings');
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

/**
 * Two property values compared as HubSpot does: date-times by instant (a filter may give epoch
 * ms or ISO), numbers as numbers, text case-insensitively.
 */
function compare(property: unknown, value: string): number {
  const left = String(property);
  if (ISO.test(left)) {
    const right = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
    const l = Date.parse(left);
    if (!Number.isNaN(right)) return l === right ? 0 : l < right ? -1 : 1;
  }
  const ln = Number(left);
  const rn = Number(value);
  if (left.trim() !== '' && value.trim() !== '' && Number.isFinite(ln) && Number.isFinite(rn)) return ln === rn ? 0 : ln < rn ? -1 : 1;
  const a = left.toLowerCase();
  const b = value.toLowerCase();
  return a === b ? 0 : a < b ? -1 : 1;
}

/** CONTAINS_TOKEN: a whole word of the value, or the whole value against a `*` wildcard pattern. */
function containsToken(property: unknown, token: string): boolean {
  const text = String(property).toLowerCase();
  const want = token.toLowerCase();
  if (want.includes('*')) {
    const pattern = new RegExp(`^${want.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    return pattern.test(text) || text.split(/\s+/).some((word) => pattern.test(word));
  }
  return text.split(/[\s,;]+/).includes(want) || text === want;
}

const isSet = (value: unknown) => value !== null && value !== undefined && value !== '';

export function matchesFilter(properties: Flat, filter: SearchFilter): boolean {
  const property = properties[filter.propertyName];
  switch (filter.operator) {
    case 'HAS_PROPERTY':
      return isSet(property);
    case 'NOT_HAS_PROPERTY':
      return !isSet(property);
    case 'NEQ':
      return !isSet(property) || compare(property, filter.value!) !== 0;
    case 'NOT_IN':
      return !isSet(property) || filter.values!.every((value) => compare(property, value) !== 0);
    case 'NOT_CONTAINS_TOKEN':
      return !isSet(property) || !containsToken(property, filter.value!);
    default:
      break;
  }
  if (!isSet(property)) return false;
  switch (filter.operator) {
    case 'EQ':
      return compare(property, filter.value!) === 0;
    case 'LT':
      return compare(property, filter.value!) < 0;
    case 'LTE':
      return compare(property, filter.value!) <= 0;
    case 'GT':
      return compare(property, filter.value!) > 0;
    case 'GTE':
      return compare(property, filter.value!) >= 0;
    case 'BETWEEN':
      return compare(property, filter.value!) >= 0 && compare(property, filter.highValue!) <= 0;
    case 'IN':
      return filter.values!.some((value) => compare(property, value) === 0);
    case 'CONTAINS_TOKEN':
      return containsToken(property, filter.value!);
    default:
      return false;
  }
}

/** No groups match everything; otherwise any group whose filters all match. */
export function matchesGroups(properties: Flat, groups: SearchFilter[][]): boolean {
  return groups.length === 0 || groups.some((group) => group.every((filter) => matchesFilter(properties, filter)));
}

/** The free-text `query`: a word of one of the object's default searchable properties starts with it. */
export function matchesQuery(properties: Flat, searchable: readonly string[], query: string): boolean {
  const want = query.trim().toLowerCase();
  if (want === '') return true;
  return searchable.some((name) => {
    const value = properties[name];
    if (!isSet(value)) return false;
    const text = String(value).toLowerCase();
    return text.startsWith(want) || text.split(/[\s@.,;:/-]+/).some((word) => word.startsWith(want));
  });
}

/** Sorts by one property; records without it come last either way, ties keep store order. */
export function sortBy<T>(items: T[], propertiesOf: (item: T) => Flat, sort: SearchRequest['sort']): T[] {
  if (!sort) return items;
  const sign = sort.descending ? -1 : 1;
  return items
    .map((item, index) => ({ item, index, value: propertiesOf(item)[sort.propertyName] }))
    .sort((a, b) => {
      const aSet = isSet(a.value);
      const bSet = isSet(b.value);
      if (!aSet || !bSet) return aSet === bSet ? a.index - b.index : aSet ? -1 : 1;
      return sign * compare(a.value, String(b.value)) || a.index - b.index;
    })
    .map(({ item }) => item);
}
