import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { passesInPieces } from './passes-in-pieces.js';
import { runToEnd } from './pieces.js';
import { Random } from './random.js';

const record = z.object({ id: z.string(), amount: z.number().nullable(), tags: z.array(z.string()) }).strict();
const schema = z
  .object({
    name: z.string(),
    data: z.object({ entries: z.array(z.object({ seq: z.number().int().positive(), record }).strict()), note: z.string().optional() }).strict(),
    loose: z.object({ kept: z.boolean() }),
    extra: z.array(record).optional(),
  })
  .strict();

describe('passesInPieces', () => {
  it('answers as safeParse does, large values and small, good and broken, stopping along the way on the large', () => {
    const random = new Random(47);
    const good = () => ({
      name: 'n',
      data: { entries: Array.from({ length: 2000 }, (_, i) => ({ seq: i + 1, record: { id: `r${i}`, amount: i % 3 ? i : null, tags: ['a'] } })) },
      loose: { kept: true, dropped: 'stripped, not refused' },
    });
    const breakers: Array<(value: ReturnType<typeof good>) => void> = [
      () => undefined,
      (value) => ((value.data.entries[random.uint32() % 2000]!.record as { amount: unknown }).amount = 'x'),
      (value) => ((value.data.entries[random.uint32() % 2000] as { seq: number }).seq = 0),
      (value) => ((value.data.entries[random.uint32() % 2000]!.record as Record<string, unknown>).unknown = 1),
      (value) => ((value as Record<string, unknown>).unknown = 1),
      (value) => ((value.data as Record<string, unknown>).note = 5),
      (value) => ((value as Record<string, unknown>).extra = [{ id: 'x', amount: 1, tags: [2] }]),
      (value) => ((value.loose as Record<string, unknown>).kept = 'no'),
      (value) => ((value as { data: unknown }).data = null),
    ];
    for (const breaker of breakers) {
      const value = good();
      breaker(value);
      let stops = 0;
      const pieces = passesInPieces(schema, value);
      let step = pieces.next();
      for (; !step.done; step = pieces.next()) stops++;
      expect(step.value, String(breaker)).toBe(schema.safeParse(value).success);
      if (step.value) expect(stops).toBeGreaterThan(100);
    }
    for (const small of [{}, null, 'x', { name: 'n', data: { entries: [] }, loose: { kept: false } }]) {
      expect(runToEnd(passesInPieces(schema, small))).toBe(schema.safeParse(small).success);
    }
  });
});
