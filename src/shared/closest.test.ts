import { describe, expect, it } from 'vitest';
import { closest, editDistance } from './closest.js';

describe('closest', () => {
  it('counts insertions, deletions, changes and swaps', () => {
    expect([editDistance('prot', 'port'), editDistance('srve', 'serve'), editDistance('salesfroce', 'salesforce'), editDistance('', 'abc')]).toEqual([
      1, 1, 1, 3,
    ]);
  });

  it('suggests the word a typo most likely meant, and nothing for a word far from all', () => {
    expect(closest('prot', ['port', 'host', 'seed'])).toBe('port');
    expect(closest('srve', ['serve', 'scenario', 'openapi', 'client-check', 'mcp'])).toBe('serve');
    expect(closest('apiKey', ['apiKeys', 'adminKey', 'seed'])).toBe('apiKeys');
    expect(closest('READY-DELAY', ['ready-delay', 'initial-sync-delay'])).toBe('ready-delay');
    expect(closest('scen', ['serve', 'scenario'])).toBe('scenario');
    expect(closest('banana', ['port', 'host', 'seed'])).toBeUndefined();
    expect(closest('x', ['ab', 'cd'])).toBeUndefined();
  });
});
