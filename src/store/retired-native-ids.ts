import * as z from 'zod';
import { CRM_OBJECT_TYPES, type CrmObjectType, type CrmRecord } from '../model/crm.js';
import { INTEGRATIONS, type IntegrationId } from '../model/integrations.js';
import { once } from '../shared/once.js';
import { hash32, Random, randomStateSchema } from '../shared/random.js';
import { countSchema } from '../shared/state-schemas.js';

/**
 * A run of the record stream's draws that a crash may have lost (docs/decisions/0030): where it
 * started and how long it was. No native id those draws could have made is issued again.
 */
export const retiredDrawsSchema = once(() => z.object({ from: randomStateSchema(), draws: countSchema() }).strict());
export type RetiredDraws = z.infer<ReturnType<typeof retiredDrawsSchema>>;

/**
 * The native ids no new record of a connection takes: those its deleted records had, and after a
 * crash, those the runs of draws the crash may have lost could have made. Short native ids (such
 * as Pipedrive's six digits) could otherwise come back from later draws.
 */
export class RetiredNativeIds {
  /** Runs of the record stream that crashes may have lost (see {@link retire}), oldest first. */
  private readonly runs: RetiredDraws[] = [];
  /** The deleted records' native ids, by `type:nativeId`; kept up to date from the archive as it grows. */
  private deleted: { ids: Set<string>; seen: number } | undefined;
  /** Hashes of the native ids the retired runs could have made, built on first need. */
  private lost: Set<number> | undefined;

  /** `archived`: the connection's deleted records, oldest first, read as the list grows. */
  constructor(
    private readonly integrationId: IntegrationId,
    private readonly archived: ReadonlyArray<{ type: CrmObjectType; record: Pick<CrmRecord, 'nativeId'> }>,
  ) {}

  /**
   * After a crash: the next `draws` of the record stream may have made ids a client was told of
   * and the state lost. The stream moves past them, and no native id they could have made is
   * issued again; the run is kept in the data set's state.
   */
  retire(random: Random, draws: number): void {
    this.runs.push({ from: random.state(), draws });
    random.skipDraws(draws);
    this.lost = undefined;
  }

  /** Whether a deleted record of the type had the native id, or a run that a crash lost may have issued it. */
  has(type: CrmObjectType, nativeId: string): boolean {
    if (this.archived.length === 0 && this.runs.length === 0) return false;
    const key = `${type}:${nativeId}`;
    const deleted = (this.deleted ??= { ids: new Set(), seen: 0 });
    for (; deleted.seen < this.archived.length; deleted.seen++) {
      const { type: deletedType, record } = this.archived[deleted.seen]!;
      deleted.ids.add(`${deletedType}:${record.nativeId}`);
    }
    if (deleted.ids.has(key)) return true;
    return this.runs.length > 0 && this.lostIds().has(hash32(key));
  }

  /** The retired runs as a data set's state keeps them (copies), oldest first. */
  state(): RetiredDraws[] {
    return this.runs.map((run) => ({ ...run }));
  }

  /** Takes the runs of a saved data set. */
  load(runs: readonly RetiredDraws[]): void {
    this.runs.push(...runs);
    this.lost = undefined;
  }

  /**
   * What the retired runs could have made, hashed: a native id of every type from every draw
   * of each run (the lost run's records started wherever its creates fell). A hash that only
   * collides costs one more draw.
   */
  private lostIds(): Set<number> {
    if (this.lost) return this.lost;
    const ids = new Set<number>();
    const facts = INTEGRATIONS[this.integrationId];
    for (const { from, draws } of this.runs) {
      const stream = Random.fromState(from);
      for (let i = 0; i < draws; i++) {
        const at = stream.state();
        for (const type of CRM_OBJECT_TYPES) ids.add(hash32(`${type}:${facts.newNativeId(type, Random.fromState(at))}`));
        stream.skipDraws(1);
      }
    }
    this.lost = ids;
    return ids;
  }
}
