import { afterEach, describe, expect, it, vi } from 'vitest';

// How long a piece of work holds the event loop (decision 0038, amendment): the slice depends on what a turn costs.
describe('BREATH_SLICE_MS', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('is 1 ms in Node, where a turn is setImmediate', async () => {
    vi.resetModules();
    const { BREATH_SLICE_MS } = await import('./pieces.js');
    expect(BREATH_SLICE_MS).toBe(1);
  });

  it('is 5 ms where there is no setImmediate (a browser), since a nested timer of 0 waits at least 4 ms', async () => {
    vi.stubGlobal('setImmediate', undefined);
    vi.resetModules();
    const { BREATH_SLICE_MS } = await import('./pieces.js');
    expect(BREATH_SLICE_MS).toBe(5);
  });
});
