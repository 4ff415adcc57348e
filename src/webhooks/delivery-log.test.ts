import { describe, expect, it } from 'vitest';
import { createSandbox } from '../index.js';
import { runInTurns, runToEnd } from '../shared/pieces.js';

describe('DeliveryLog.listInPieces', () => {
  it('reads what list() reads, in the same order, whether run at once or with turns between', async () => {
    const sandbox = createSandbox({ clock: 'virtual', seed: 3 });
    const a = sandbox.connect({ integrationId: 'hubspot' }).connectionId;
    const b = sandbox.connect({ integrationId: 'pipedrive' }).connectionId;
    for (let i = 0; i < 20; i++) {
      sandbox.createRecord(a, 'Contact', { lastName: `A${i}` });
      sandbox.createRecord(b, 'Deal', { name: `B${i}` });
    }
    const { dispatcher } = sandbox.parts;
    for (const connectionId of [a, b, undefined]) {
      const listed = JSON.stringify(dispatcher.list(connectionId));
      expect(listed.length).toBeGreaterThan(1000);
      expect(JSON.stringify(runToEnd(dispatcher.listInPieces(connectionId)))).toBe(listed);
      // A slice of 0 ms: a turn of the event loop after every delivery.
      expect(JSON.stringify(await runInTurns(dispatcher.listInPieces(connectionId), 0))).toBe(listed);
    }
    sandbox.close();
  });
});
