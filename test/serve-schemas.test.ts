import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script, without types
import { serveSchemas } from '../scripts/serve-schemas.mjs';
import { callApi } from './helpers/cli.js';

// The zod schemas `serve` builds before its first answer (docs/decisions/0035): zod 4 binds every
// method of a schema as it is built, so a module's top-level schemas cost its start whether a
// request reads them or not. Modules build theirs on first use (src/shared/once.ts); this keeps
// them so. The count is made in the spawned CLI as the built bundle ships (scripts/record-schemas.mjs);
// no timings here.

/** What one module may build at start (today none does): a module's top-level schemas back at import pass it, as did the biggest (40, 85). */
const FEW = 5;
/** With margin over today's none (client-check's report, off the start path now, built 91): several small modules back at import pass it. */
const TOTAL_BOUND = 30;

interface Counted {
  total: number;
  byModule: Record<string, number>;
}

describe('serve builds few zod schemas before its first answer', () => {
  it('answers GET /sandbox/health with no module building more than a few; a route builds its body schema on its first request', async () => {
    let exchangeStatus = 0;
    const { total, byModule, after }: Counted & { after: Counted } = await serveSchemas({
      afterFirst: async (url: string) => {
        exchangeStatus = (await callApi(url, 'sandbox-api-key', 'POST', '/link/exchange', {})).status;
        // Recorded as this one arrives: what was built by then, the exchange's body schema included.
        await callApi(url, 'sandbox-api-key', 'POST', '/link/exchange', {});
      },
    });
    const many = Object.entries(byModule).filter(([, count]) => count > FEW);
    expect(many).toEqual([]);
    expect(total).toBeLessThanOrEqual(TOTAL_BOUND);
    // The count sees what it should: the first exchange (a 400: no publicToken) built its body's schema then, in its own module.
    expect(exchangeStatus).toBe(400);
    expect(byModule['dist/core/routes/link.js'] ?? 0).toBe(0);
    expect(after.byModule['dist/core/routes/link.js']).toBeGreaterThan(0);
    expect(after.total).toBeGreaterThan(total);
  });
});
