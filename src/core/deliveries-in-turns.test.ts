import { describe, expect, it } from 'vitest';
import { turnsDuring } from '../../test/helpers/turns.js';
import { createSandbox } from '../index.js';
import type { Sandbox } from './sandbox.js';

const KEY = { 'service-api-token': 'sandbox-api-key' };

/** A connection with `count` events waiting for a webhook (pending deliveries). */
function withDeliveries(count: number, clock: 'real' | 'virtual') {
  const sandbox = createSandbox({ seed: 5, clock });
  const { connectionId } = sandbox.connect({ integrationId: 'hubspot' });
  sandbox.setStatus(connectionId, 'READY');
  for (let i = 0; i < count; i++) sandbox.createRecord(connectionId, 'Contact', { firstName: `F${i}` });
  return { sandbox, connectionId };
}

const list = (sandbox: Sandbox, connectionId: string, query = '') =>
  sandbox.handle({ method: 'GET', path: `/sandbox/connections/${connectionId}/deliveries`, query, headers: KEY });

describe('GET /sandbox/connections/{id}/deliveries (docs/decisions/0040)', () => {
  it('on a real clock, writes a long log a delivery a piece, with turns of the event loop between: the same bytes as at once', async () => {
    const { sandbox, connectionId } = withDeliveries(3_000, 'real');
    const { result, turns } = await turnsDuring(() => list(sandbox, connectionId));
    expect(result.status).toBe(200);
    expect(turns).toBeGreaterThan(0);
    expect(result.body).toBe(JSON.stringify({ deliveries: sandbox.deliveries(connectionId) }));
    expect(new TextDecoder().decode(result.encoded)).toBe(result.body);
    const pending = await list(sandbox, connectionId, 'state=pending');
    expect(pending.body).toBe(JSON.stringify({ deliveries: sandbox.deliveries(connectionId).filter((delivery) => delivery.state === 'pending') }));
    expect((await list(sandbox, connectionId, 'state=failed')).body).toBe('{"deliveries":[]}');
    sandbox.close();
  });

  it('writes a restored log (whose text is the snapshot’s) as JSON.stringify does too', async () => {
    const { sandbox, connectionId } = withDeliveries(20, 'real');
    // The snapshot's bodies written with other spacing: a restored delivery's event is parsed and written again.
    const snapshot = sandbox.snapshot();
    const deliveries = snapshot.deliveries.map((delivery) => ({ ...delivery, body: JSON.stringify(JSON.parse(delivery.body), null, 1) }));
    sandbox.restore({ ...snapshot, deliveries });
    const response = await list(sandbox, connectionId);
    expect(response.body).toBe(JSON.stringify({ deliveries: sandbox.deliveries(connectionId) }));
    sandbox.close();
  });

  it('on a virtual clock, answers at once with the same bytes (no turn)', async () => {
    const { sandbox, connectionId } = withDeliveries(500, 'virtual');
    const { result, turns } = await turnsDuring(() => list(sandbox, connectionId));
    expect(turns).toBe(0);
    expect(result.body).toBe(JSON.stringify({ deliveries: sandbox.deliveries(connectionId) }));
    sandbox.close();
  });
});
