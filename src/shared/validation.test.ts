import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { describeIssues, explainIssues, schemaAt } from './validation.js';

const schema = z.strictObject({
  share: z.number().min(0).max(1).optional(),
  count: z.number().int().min(1),
  kind: z.enum(['a', 'b']).optional(),
  wait: z.union([z.literal('now'), z.strictObject({ by: z.string() })]).optional(),
  nested: z.strictObject({ city: z.string().nullable().optional() }).nullable().optional(),
});
const explained = (value: unknown) =>
  explainIssues(schema, schema.safeParse(value, { reportInput: true }).error!).map(({ field, message, allowed }) => ({
    field,
    message,
    ...(allowed ? { allowed } : {}),
  }));

describe('explainIssues', () => {
  it('says what would have been right: both bounds, the allowed values and keys, with what was given', () => {
    expect(explained({ share: 2, count: 0, kind: 'c', nested: { cty: 'x' }, extra: 1 })).toEqual([
      { field: 'share', message: 'must be a number from 0 to 1, got 2' },
      { field: 'count', message: 'must be an integer of at least 1, got 0' },
      { field: 'kind', message: 'must be one of "a", "b", got "c"' },
      { field: 'nested.cty', message: 'is not a known field', allowed: ['city'] },
      { field: 'extra', message: 'is not a known field', allowed: ['share', 'count', 'kind', 'wait', 'nested'] },
    ]);
  });

  it('explains a union by the option that fits the value, or lists the options when none does', () => {
    expect(explained({ count: 1, wait: { bye: '1s' } })).toEqual([
      { field: 'wait.by', message: 'is required' },
      { field: 'wait.bye', message: 'is not a known field', allowed: ['by'] },
    ]);
    expect(explained({ count: 1, wait: 'later' })).toEqual([{ field: 'wait', message: 'must be "now", got "later"' }]);
    expect(explained({ count: 1, wait: 5 })).toEqual([{ field: 'wait', message: 'must be "now" or an object, got number' }]);
  });

  it('leaves describeIssues as it was', () => {
    expect(describeIssues(schema.safeParse({ share: 2, count: 1 }, { reportInput: true }).error!)).toEqual([
      { field: 'share', message: 'too big: expected number to be <=1' },
    ]);
  });

  it('finds the schema of a place inside a value', () => {
    expect(schemaAt(schema, ['nested', 'city'])).toBeInstanceOf(z.ZodString);
    expect(schemaAt(schema, ['wait', 'by'])).toBeInstanceOf(z.ZodString);
    expect(schemaAt(schema, ['nested', 'street'])).toBeUndefined();
  });
});
