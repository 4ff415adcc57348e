import { describe, expect, it } from 'vitest';
import type { CrmObjectType } from '../model/crm.js';
import { INTEGRATIONS } from '../model/integrations.js';
import { Random } from '../shared/random.js';
import { RetiredNativeIds } from './retired-native-ids.js';

describe('RetiredNativeIds', () => {
  it('retires the native ids of deleted records, by type, as the archive grows', () => {
    const archived: Array<{ type: CrmObjectType; record: { nativeId: string } }> = [];
    const retired = new RetiredNativeIds('pipedrive', archived);
    expect(retired.has('Contact', '123456')).toBe(false);
    archived.push({ type: 'Contact', record: { nativeId: '123456' } });
    expect(retired.has('Contact', '123456')).toBe(true);
    expect(retired.has('Deal', '123456')).toBe(false);
  });

  it('after a crash, moves the stream past the lost draws and retires what each could have made, and keeps the run in its state', () => {
    const retired = new RetiredNativeIds('pipedrive', []);
    const random = new Random(7);
    const from = random.state();
    const lost = [0, 1, 2].map((draw) => {
      const at = Random.fromState(from);
      at.skipDraws(draw);
      return INTEGRATIONS.pipedrive.newNativeId('Deal', at);
    });
    retired.retire(random, 3);
    const after = Random.fromState(from);
    after.skipDraws(3);
    expect(random.state()).toEqual(after.state());
    for (const nativeId of lost) expect(retired.has('Deal', nativeId)).toBe(true);
    expect(retired.state()).toEqual([{ from, draws: 3 }]);

    const loaded = new RetiredNativeIds('pipedrive', []);
    loaded.load(retired.state());
    for (const nativeId of lost) expect(loaded.has('Deal', nativeId)).toBe(true);
  });
});
