import type * as Details from './details.js';
import type * as EngagementWrites from './engagement-writes.js';
import type * as Writes from './writes.js';

let writes: Promise<typeof Writes> | undefined;
let details: Promise<typeof Details> | undefined;
let engagementWrites: Promise<typeof EngagementWrites> | undefined;

/**
 * The unified writes (with the simulated systems' field maps, for `additional`) and field lists,
 * loaded by the first create, update or details call, so `serve` starts without them, as it
 * starts without the simulated systems (src/downstream/load.ts).
 */
export const loadUnifiedWrites = (): Promise<typeof Writes> => (writes ??= import('./writes.js'));
export const loadFieldDetails = (): Promise<typeof Details> => (details ??= import('./details.js'));
/** The unified engagement writes (creates, updates, completes, sequence starts), loaded by the first of them. */
export const loadEngagementWrites = (): Promise<typeof EngagementWrites> => (engagementWrites ??= import('./engagement-writes.js'));
