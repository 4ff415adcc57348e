import * as z from 'zod';
import { once } from './once.js';

/*
 * The zod pieces that the parts' state schemas share. Each part keeps its own state schema
 * beside its code (the registry, the lifecycle, the delivery log, chaos, a connection's data);
 * a snapshot only composes them (src/core/snapshot.ts).
 */

/** A sandbox time in a saved state: ms since the unix epoch. */
export const timeMsSchema = once(() => z.number().int().nonnegative());

/** How many of something. */
export const countSchema = once(() => z.number().int().nonnegative());

/** A digest of JSON values (`hashJson`, as 8 hex characters): of seeded entries, of fixtures. */
export const digestSchema = once(() => z.string().regex(/^[0-9a-f]{8}$/, 'must be 8 lowercase hex characters'));
