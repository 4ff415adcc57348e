import { needleFinder } from '../../shared/needles.js';
import { mapPieces } from '../../shared/pieces.js';
import { isPlainObject, type NativeFields, renderFields } from '../rest-engine.js';
import { intParam, type Route, reply } from '../router.js';
import type { DownstreamAnswer, DownstreamContext, DownstreamRequest } from '../types.js';
import { collectInPieces } from '../walk-in-pieces.js';
import { api, errors, HEADERS, MODULES, zohoError } from './objects.js';

/**
 * Zoho CRM's search (`{Module}/search`): one of `criteria`, `email`, `phone` or `word`, with
 * `page`/`per_page` and `info.more_records`, 204 when nothing matches.
 * https://www.zoho.com/crm/developer/docs/api/v3/search-records.html
 *
 * `criteria` is `(Field:operator:value)` joined by `and`/`or` with parentheses; `\` escapes
 * `(`, `)` and `,` in values; `in` takes comma-separated values; at most 10 conditions.
 */

export const CRITERIA_OPERATORS = [
  'equals',
  'not_equal',
  'starts_with',
  'in',
  'not_in',
  'greater_than',
  'greater_equal',
  'less_than',
  'less_equal',
  'between',
] as const;
type Operator = (typeof CRITERIA_OPERATORS)[number];

type Criteria = { kind: 'cond'; field: string; operator: Operator; values: string[] } | { kind: 'and' | 'or'; parts: Criteria[] };

/** Zoho's own INVALID_QUERY, carrying what it found wrong. */
class QueryError extends Error {
  constructor(readonly details: NativeFields) {
    super('Invalid query formed');
  }
}

const MAX_CONDITIONS = 10;
/**
 * How deep groups may nest. Zoho documents no depth; ten conditions never need more than ten
 * levels, and twice that leaves room for redundant parentheses, where deeper input would only
 * make the (recursive) parser recurse deeper.
 */
const MAX_NESTING = 20;

/** Splits on `sep` outside escapes; unescapes the parts. */
function splitEscaped(text: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      current += text[++i];
    } else if (c === sep) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

/** Parses a criteria string; a QueryError says what is wrong. */
export function parseCriteria(source: string, fields: readonly string[]): Criteria {
  let i = 0;
  let count = 0;
  let depth = 0;
  const fail = (reason: string, more: NativeFields = {}): never => {
    throw new QueryError({ reason, ...more });
  };
  const group = (): Criteria => {
    if (source[i] !== '(') fail('invalid query formed', { near: source.slice(i, i + 20) });
    i++;
    // A nested group, or one condition up to its unescaped ')'.
    if (source[i] === '(') {
      if (++depth > MAX_NESTING) fail(`more than ${MAX_NESTING} levels of parentheses`);
      const inner = sequence();
      if (source[i] !== ')') fail('invalid query formed', { near: source.slice(i, i + 20) });
      i++;
      depth--;
      return inner;
    }
    let body = '';
    while (i < source.length && source[i] !== ')') {
      if (source[i] === '\\' && i + 1 < source.length) body += source[i++];
      body += source[i++];
    }
    if (source[i] !== ')') fail('invalid query formed', { near: body });
    i++;
    const first = body.indexOf(':');
    const second = body.indexOf(':', first + 1);
    if (first < 0 || second < 0) fail('invalid query formed', { near: body });
    const field = body.slice(0, first).trim();
    const operator = body.slice(first + 1, second).trim();
    const raw = body.slice(second + 1);
    const known = fields.find((name) => name.toLowerCase() === field.toLowerCase());
    if (!known) fail('invalid api_name', { api_name: field });
    if (!(CRITERIA_OPERATORS as readonly string[]).includes(operator)) fail('invalid operator found', { api_name: known, operator });
    const values = operator === 'in' || operator === 'not_in' || operator === 'between' ? splitEscaped(raw, ',') : [splitEscaped(raw, '\u0000').join('')];
    if (operator === 'between' && values.length !== 2) fail('between needs two values', { api_name: known, operator });
    if (++count > MAX_CONDITIONS) fail(`more than ${MAX_CONDITIONS} criteria`);
    return { kind: 'cond', field: known!, operator: operator as Operator, values: values.map((value) => value.trim()) };
  };
  // Conditions joined by and/or; where both appear at one level, `and` binds first.
  const sequence = (): Criteria => {
    const ors: Criteria[][] = [[group()]];
    for (;;) {
      const m = /^(and|or)(?=\()/i.exec(source.slice(i));
      if (!m) break;
      i += m[0].length;
      if (m[1]!.toLowerCase() === 'or') ors.push([]);
      ors.at(-1)!.push(group());
    }
    const ands = ors.map((parts): Criteria => (parts.length === 1 ? parts[0]! : { kind: 'and', parts }));
    return ands.length === 1 ? ands[0]! : { kind: 'or', parts: ands };
  };
  const criteria = sequence();
  if (i !== source.length) fail('invalid query formed', { near: source.slice(i, i + 20) });
  return criteria;
}

/** A rendered value as text to compare: lookups by name (or id), lists by their items. */
function texts(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap(texts);
  if (isPlainObject(value)) return [value.name, value.id].filter((item) => item !== undefined && item !== null).map(String);
  return [String(value)];
}

const DATE_LIKE = /^\d{4}-\d{2}-\d{2}/;

/** A criteria value with what comparing takes worked out once, not once a row. */
interface Operand {
  number: number;
  blank: boolean;
  /** As a date, when it reads as one (starts YYYY-MM-DD and parses). */
  date: number;
  lower: string;
}

function operand(value: string): Operand {
  return { number: Number(value), blank: value.trim() === '', date: DATE_LIKE.test(value) ? Date.parse(value) : Number.NaN, lower: value.toLowerCase() };
}

/** Numbers as numbers, dates as dates, anything else as text, case-insensitively. */
function compare(a: string, b: Operand): number {
  const x = Number(a);
  if (a.trim() !== '' && !b.blank && Number.isFinite(x) && Number.isFinite(b.number)) return x - b.number;
  const t = DATE_LIKE.test(a) ? Date.parse(a) : Number.NaN;
  if (!Number.isNaN(t) && !Number.isNaN(b.date)) return t - b.date;
  const lower = a.toLowerCase();
  return lower < b.lower ? -1 : lower > b.lower ? 1 : 0;
}

/** A criteria tree as one test of a rendered row, its values worked out once for all the rows. */
function criteriaTest(criteria: Criteria): (row: NativeFields) => boolean {
  if (criteria.kind !== 'cond') {
    const parts = criteria.parts.map(criteriaTest);
    return criteria.kind === 'and' ? (row) => parts.every((part) => part(row)) : (row) => parts.some((part) => part(row));
  }
  const { field, operator } = criteria;
  const [first, second] = [operand(criteria.values[0] ?? ''), operand(criteria.values[1] ?? '')];
  const listed = new Set(criteria.values.map((value) => value.toLowerCase()));
  const test = (row: NativeFields, hit: (value: string) => boolean) => texts(row[field]).some(hit);
  switch (operator) {
    case 'equals':
      return (row) => test(row, (value) => value.toLowerCase() === first.lower);
    case 'not_equal':
      return (row) => !test(row, (value) => value.toLowerCase() === first.lower);
    case 'starts_with':
      return (row) => test(row, (value) => value.toLowerCase().startsWith(first.lower));
    case 'in':
      return (row) => test(row, (value) => listed.has(value.toLowerCase()));
    case 'not_in':
      return (row) => !test(row, (value) => listed.has(value.toLowerCase()));
    case 'greater_than':
      return (row) => test(row, (value) => compare(value, first) > 0);
    case 'greater_equal':
      return (row) => test(row, (value) => compare(value, first) >= 0);
    case 'less_than':
      return (row) => test(row, (value) => compare(value, first) < 0);
    case 'less_equal':
      return (row) => test(row, (value) => compare(value, first) <= 0);
    case 'between':
      return (row) => test(row, (value) => compare(value, first) >= 0 && compare(value, second) <= 0);
    default:
      return () => false;
  }
}

const EMAIL = /email/i;
const PHONE = /phone|mobile/i;

function search(module: string, request: DownstreamRequest, context: DownstreamContext): DownstreamAnswer {
  const target = MODULES[module]!;
  const { criteria, email, phone, word } = request.query;
  const given = [criteria, email, phone, word].filter((value) => value !== undefined && value !== '');
  if (given.length === 0) return zohoError(400, 'REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param: 'criteria' });
  if (given.length > 1) return zohoError(400, 'INVALID_QUERY', 'only one of criteria, email, phone and word may be given', {});
  const page = intParam(request.query.page, 'page', 1, 1);
  const perPage = intParam(request.query.per_page, 'per_page', 200, 1, 200);
  const entries = context.data.crm[target.type].entries();
  // The criteria name fields as a rendered record has them: the first record's, rendered now; the rest in the walk.
  const first = entries[0];
  const fields = first ? Object.keys(renderFields(target, first.record, first.extra, context)) : target.fields.map((field) => field.native);
  let test: (row: NativeFields) => boolean;
  if (criteria !== undefined && criteria !== '') {
    let parsed: Criteria;
    try {
      parsed = parseCriteria(criteria, fields);
    } catch (error) {
      if (error instanceof QueryError) return zohoError(400, 'INVALID_QUERY', 'Invalid query formed', error.details);
      throw error;
    }
    test = criteriaTest(parsed);
  } else {
    const [names, want, how] =
      email !== undefined && email !== ''
        ? [fields.filter((name) => EMAIL.test(name)), email, 'equals']
        : phone !== undefined && phone !== ''
          ? [fields.filter((name) => PHONE.test(name)), phone, 'equals']
          : [fields, word!, 'word'];
    if (how === 'word' && want.trim().length < 2) return zohoError(400, 'INVALID_QUERY', 'word must be at least 2 characters', { param: 'word' });
    const lower = want.toLowerCase();
    const firstAt = needleFinder(lower);
    // A word matches anywhere in a value (a part of it that starts with the word contains it too).
    test = (row) =>
      names.some((name) => texts(row[name]).some((value) => (how === 'word' ? firstAt(value.toLowerCase()) >= 0 : value.toLowerCase() === lower)));
  }
  // Every record is rendered and tested: in pieces (decision 0042).
  const found = collectInPieces(entries, (entry) => {
    const row = renderFields(target, entry.record, entry.extra, context);
    return test(row) ? row : undefined;
  });
  return mapPieces(found, (hits) => {
    const offset = (page - 1) * perPage;
    const items = hits.slice(offset, offset + perPage);
    // No match (or a page past the end) is 204 with no body, as in Zoho.
    if (items.length === 0) return reply(204, null, HEADERS);
    return reply(200, { data: items, info: { per_page: perPage, count: items.length, page, more_records: offset + items.length < hits.length } }, HEADERS);
  });
}

/**
 * `{Module}/search`: one static path per collection, which outranks `{Module}/{id}` (a search
 * of `users` is Zoho's 404), and `:module/search` for any other name (a 404 too).
 */
export function searchRoutes(): Route[] {
  const run =
    (module: string): Route['run'] =>
    (_params, request, context) =>
      MODULES[module] ? search(module, request, context) : errors.notFound(request, context);
  return [
    ...Object.keys(api.collections).map((module) => ({ method: 'GET' as const, pattern: `${module}/search`, run: run(module) })),
    { method: 'GET', pattern: ':module/search', run: (params, request, context) => run(params.module!)(params, request, context) },
  ];
}
