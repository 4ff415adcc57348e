import type { z } from 'zod';
import { didYouMean } from './closest.js';
import { ApiError } from './errors.js';

/** `a.b[2].c` from a zod issue path. */
export function fieldPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

export interface FieldIssue {
  field: string;
  message: string;
}

/**
 * Flattens zod issues into one line per field, naming unknown keys one by one; given the schema
 * that was parsed, an unknown key that is a likely typo of one it takes says which
 * (`fristName is not a known field; did you mean firstName?`).
 */
export function describeIssues(error: z.ZodError, prefix = '', schema?: z.ZodType): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      const at = schema && schemaAt(schema, issue.path);
      const allowed = (at && objectKeys(at)) ?? [];
      for (const key of issue.keys) {
        issues.push({ field: fieldPath([...issue.path, key], prefix), message: `is not a known field${didYouMean(key, allowed)}` });
      }
      continue;
    }
    issues.push({ field: fieldPath(issue.path, prefix), message: phrase(issue) });
  }
  return issues;
}

/**
 * Parses `value` or throws a 400 INVALID_FIELD_VALUE that names the first bad field in its
 * message and lists every issue in `metadata.issues`.
 *
 * @example const body = parseOrThrow(schema, await ctx.json())
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.infer<S> {
  // Parsed without a context first: passing one (`reportInput`) made every parse of a request body
  // leave ~70 bytes to be promoted to the old generation (--trace-gc-nvp). Only a failure needs the
  // inputs, to say what was sent; it is parsed again with them.
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw invalidFromIssues(describeIssues(schema.safeParse(value, { reportInput: true }).error!, prefix, schema));
}

/** An issue as the end of a sentence that starts with the field name: `limit must be a number`. */
function phrase(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return 'is required';
    const got = issue.input === null ? 'null' : Array.isArray(issue.input) ? 'array' : typeof issue.input;
    return `must be ${withArticle(issue.expected)}, got ${got}`;
  }
  if (issue.code === 'too_small' && issue.origin === 'string' && issue.minimum === 1) return 'must not be empty';
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}${given(issue)}`;
  return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
}

/** What a value outside an enum was, when it is known (`, got "salesfroce"`), and the value it likely meant. */
function given(issue: z.core.$ZodIssueInvalidValue): string {
  if (!('input' in issue) || issue.input === undefined) return '';
  const text = typeof issue.input === 'string' ? JSON.stringify(issue.input) : String(issue.input);
  return `, got ${text}${didYouMean(
    issue.input,
    issue.values.filter((value): value is string => typeof value === 'string'),
    { quote: true },
  )}`;
}

function withArticle(word: string): string {
  return /^[aeio]/.test(word) ? `an ${word}` : `a ${word}`;
}

export function invalidFromIssues(issues: FieldIssue[]): ApiError {
  const first = issues[0] ?? { field: '', message: 'is invalid' };
  const message = first.field === '' ? `request body ${first.message}` : `${first.field} ${first.message}`;
  return ApiError.invalidField(first.field, message, { issues });
}

/** An issue explained for a person who wrote the value by hand (a scenario file). */
export interface ExplainedIssue extends FieldIssue {
  /** Where the issue is, as a path into the value. */
  path: PropertyKey[];
  /** The zod issue code it comes from (`invalid_type`, `unrecognized_keys`, …). */
  code: string;
  /** For an unknown key: the keys its object takes. */
  allowed?: string[];
}

/**
 * Like {@link describeIssues}, but says what would have been right, reading `schema` (the one
 * that was parsed): the keys an object takes beside an unknown one, both bounds of a number out of
 * range, the value given beside the allowed ones, and a union's one option that fits the value's
 * type instead of "invalid input".
 */
export function explainIssues(schema: z.ZodType, error: z.ZodError): ExplainedIssue[] {
  // One issue per field, the first: a URL that is no URL is not also told it is not http.
  const seen = new Set<string>();
  return explain(schema, error.issues, []).filter((issue) => !seen.has(issue.field) && seen.add(issue.field));
}

function explain(schema: z.ZodType | undefined, issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[]): ExplainedIssue[] {
  const out: ExplainedIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    const at = schema && schemaAt(schema, issue.path);
    if (issue.code === 'unrecognized_keys') {
      const allowed = at && objectKeys(at);
      for (const key of issue.keys) {
        out.push({
          path: [...path, key],
          field: fieldPath([...path, key]),
          code: issue.code,
          message: 'is not a known field',
          ...(allowed ? { allowed } : {}),
        });
      }
    } else if (issue.code === 'invalid_union' && issue.inclusive !== false) {
      const fitting = issue.errors.findIndex((branch) => !wrongType(branch));
      if (fitting === -1) {
        out.push({
          path,
          field: fieldPath(path),
          code: issue.code,
          message: issue.input === undefined ? 'is required' : `must be ${orList(expectedOf(issue.errors))}, got ${typeName(issue.input)}`,
        });
      } else {
        const options = at && defOf(at).type === 'union' ? defOf(at).options : undefined;
        out.push(...explain(options?.[fitting], issue.errors[fitting]!, path));
      }
    } else {
      out.push({ path, field: fieldPath(path), code: issue.code, message: explainPhrase(issue, at) });
    }
  }
  return out;
}

/** A union option whose issues all say the value is of another type does not fit it. */
function wrongType(issues: readonly z.core.$ZodIssue[]): boolean {
  return issues.every(
    (issue) =>
      issue.path.length === 0 &&
      (issue.code === 'invalid_type' ||
        (issue.code === 'invalid_value' && !issue.values.some((value) => typeof value === typeof issue.input)) ||
        (issue.code === 'invalid_union' && issue.errors.every(wrongType))),
  );
}

/** What the options of a union take: `a string`, `false`, `an object`. */
function expectedOf(branches: ReadonlyArray<readonly z.core.$ZodIssue[]>): string[] {
  const out = new Set<string>();
  for (const issue of branches.flat()) {
    if (issue.code === 'invalid_type') out.add(withArticle(typeWord(issue.expected)));
    else if (issue.code === 'invalid_value') for (const value of issue.values) out.add(JSON.stringify(value));
    else if (issue.code === 'invalid_union') for (const word of expectedOf(issue.errors)) out.add(word);
  }
  return [...out];
}

function explainPhrase(issue: z.core.$ZodIssue, schema: z.ZodType | undefined): string {
  const got = issue.input === undefined ? '' : `, got ${typeof issue.input === 'string' ? JSON.stringify(issue.input) : String(issue.input)}`;
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${withArticle(typeWord(issue.expected))}, got ${typeName(issue.input)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}${got}`
        : `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}${given(issue)}`;
    case 'invalid_format':
      return issue.message.startsWith('Invalid') ? `must be ${issue.format === 'url' ? 'a URL' : `a valid ${issue.format}`}${got}` : `${phrase(issue)}${got}`;
    case 'too_big':
    case 'too_small': {
      if (issue.origin === 'number') return `must be ${numberRange(issue, schema)}${got}`;
      const limit = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum);
      if (issue.code === 'too_small' && limit === 1 && (issue.origin === 'array' || issue.origin === 'string')) return 'must not be empty';
      const unit = issue.origin === 'string' ? 'character' : 'item';
      return `must have ${issue.code === 'too_big' ? 'at most' : 'at least'} ${limit} ${unit}${limit === 1 ? '' : 's'}`;
    }
    default:
      return phrase(issue);
  }
}

/** `a, b or c`. */
export function orList(words: readonly string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** `a number from 0 to 1`, `an integer of at least 1`: both bounds when the schema has both. */
function numberRange(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall, schema: z.ZodType | undefined): string {
  const number = (schema && optionOfType(schema, 'number')) as { minValue?: number | null; maxValue?: number | null; isInt?: boolean } | undefined;
  const bounded = (value: number | null | undefined): value is number => typeof value === 'number' && Math.abs(value) < Number.MAX_SAFE_INTEGER;
  const kind = number?.isInt ? 'an integer' : 'a number';
  if (bounded(number?.minValue) && bounded(number?.maxValue) && issue.inclusive) return `${kind} from ${number.minValue} to ${number.maxValue}`;
  if (issue.code === 'too_big') return `${kind} ${issue.inclusive ? 'of at most' : 'below'} ${String(issue.maximum)}`;
  return `${kind} ${issue.inclusive ? 'of at least' : 'above'} ${String(issue.minimum)}`;
}

function typeWord(expected: string): string {
  return expected === 'int' ? 'integer' : expected;
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  in?: z.ZodType;
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): SchemaDef => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

/** The schema without its optional/nullable/default wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  for (let current = schema; ; ) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type)) current = def.innerType!;
    else if (def.type === 'pipe') current = def.in!;
    else if (def.type === 'lazy') current = def.getter!();
    else return current;
  }
}

/**
 * The part of `schema` that checks the value at `path` (in a union, the first option that has
 * the path), unwrapped; undefined when the schema has no such place.
 *
 * @example schemaAt(z.object({ a: z.array(z.number()).optional() }), ['a', 0]) // the z.number()
 */
export function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  const current = unwrap(schema);
  if (path.length === 0) return current;
  const [key, ...rest] = path;
  const def = defOf(current);
  if (def.type === 'object') return Object.hasOwn(def.shape!, key as string) ? schemaAt(def.shape![key as string]!, rest) : undefined;
  if (def.type === 'array') return typeof key === 'number' ? schemaAt(def.element!, rest) : undefined;
  if (def.type === 'record') return schemaAt(def.valueType!, rest);
  if (def.type === 'union') {
    for (const option of def.options!) {
      const found = schemaAt(option, path);
      if (found) return found;
    }
  }
  return undefined;
}

/** The type of the value a schema checks (`object`, `string`, `array`, `union`, …), without its wrappers. */
export function schemaType(schema: z.ZodType): string {
  return defOf(unwrap(schema)).type;
}

/** The schema, or its first union option, that checks values of `type` (`number`, `object`, …). */
function optionOfType(schema: z.ZodType, type: string): z.ZodType | undefined {
  const current = unwrap(schema);
  const def = defOf(current);
  if (def.type === type) return current;
  if (def.type !== 'union') return undefined;
  for (const option of def.options!) {
    const found = optionOfType(option, type);
    if (found) return found;
  }
  return undefined;
}

/** The keys an object schema takes (in a union, its first object option's); undefined if it takes none. */
export function objectKeys(schema: z.ZodType): string[] | undefined {
  const object = optionOfType(schema, 'object');
  return object && Object.keys(defOf(object).shape!);
}
