import * as z from 'zod';
import { once } from '../shared/once.js';

/**
 * The native parts of a passthrough call, shared by `POST /crm/passthrough` and a scenario's
 * `passthrough` step (which makes that call).
 */
const got = (input: unknown) => (input === null ? 'null' : Array.isArray(input) ? 'array' : typeof input);
const SCALAR = 'a string, number or boolean';
const queryScalar = once(() => z.union([z.string(), z.number(), z.boolean()], { error: (issue) => `must be ${SCALAR}, got ${got(issue.input)}` }));
// Its items are checked one by one, so a bad one is named (`query.properties[1]`): a union of
// arrays would only name the key. The document still says what an item may be.
const queryList = once(() =>
  z
    .array(z.unknown())
    .superRefine((items, ctx) => {
      items.forEach((item, index) => {
        if (!queryScalar().safeParse(item).success) ctx.addIssue({ code: 'custom', path: [index], message: `must be ${SCALAR}, got ${got(item)}` });
      });
    })
    .meta({ items: { type: ['string', 'number', 'boolean'] } }),
);

/** [chosen] A JSON object or array: native APIs take arrays too (HubSpot's v4 association create). */
export const nativeBodySchema = once(() =>
  z
    .union([z.record(z.string(), z.unknown()), z.array(z.unknown())], { error: (issue) => `must be an object or an array, got ${got(issue.input)}` })
    .meta({ description: 'The native request body, a JSON object or array, as the downstream API takes it.' }),
);

/** [chosen] An array value repeats its key, in order: `{ properties: ['a', 'b'] }` → `properties=a&properties=b`. */
export const nativeQuerySchema = once(() =>
  z
    .record(z.string(), z.union([queryScalar(), queryList()], { error: (issue) => `must be ${SCALAR}, or an array of them, got ${got(issue.input)}` }))
    .meta({ description: 'Query parameters, appended to those of `path`. An array value repeats its key once per item, in order.' }),
);
