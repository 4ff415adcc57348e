import type { z } from 'zod';
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

/** Flattens zod issues into one line per field, naming unknown keys one by one. */
export function describeIssues(error: z.ZodError, prefix = ''): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({ field: fieldPath([...issue.path, key], prefix), message: 'is not a known field' });
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
  throw invalidFromIssues(describeIssues(schema.safeParse(value, { reportInput: true }).error!, prefix));
}

/** An issue as the end of a sentence that starts with the field name: `limit must be a number`. */
function phrase(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return 'is required';
    const got = issue.input === null ? 'null' : Array.isArray(issue.input) ? 'array' : typeof issue.input;
    return `must be ${withArticle(issue.expected)}, got ${got}`;
  }
  if (issue.code === 'too_small' && issue.origin === 'string' && issue.minimum === 1) return 'must not be empty';
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
  return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
}

function withArticle(word: string): string {
  return /^[aeio]/.test(word) ? `an ${word}` : `a ${word}`;
}

export function invalidFromIssues(issues: FieldIssue[]): ApiError {
  const first = issues[0] ?? { field: '', message: 'is invalid' };
  const message = first.field === '' ? `request body ${first.message}` : `${first.field} ${first.message}`;
  return ApiError.invalidField(first.field, message, { issues });
}
