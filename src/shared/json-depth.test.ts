import { describe, expect, it } from 'vitest';
import { jsonTooDeep, MAX_JSON_DEPTH, valueTooDeep } from './json-depth.js';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('jsonTooDeep', () => {
  it('counts objects and arrays inside each other, up to the limit included', () => {
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonTooDeep(`${'{"a":'.repeat(5)}1${'}'.repeat(5)}`, 4)).toBe(true);
    expect(jsonTooDeep(`${'{"a":'.repeat(4)}[1]${'}'.repeat(4)}`, 4)).toBe(true);
    // Siblings are not depth: a long flat array of objects is 2 levels.
    expect(jsonTooDeep(JSON.stringify(Array.from({ length: 100 }, () => ({ a: [] }))), 3)).toBe(false);
  });

  it('skips brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: '[[[[[[[[[[{{{{{{{{{', b: 'say \\"[[[[[[[[[[\\" and \\\\', c: [['"[[[[[[[[[[']] });
    expect(JSON.parse(text)).toBeTruthy();
    expect(jsonTooDeep(text, 3)).toBe(false);
    expect(jsonTooDeep(text, 2)).toBe(true);
  });

  it('answers at once for a text too short to be that deep', () => {
    // 2 * limit + 1 characters cannot hold limit + 1 levels; a body with unbalanced brackets is not JSON anyway.
    expect(jsonTooDeep('['.repeat(2 * 4 + 1), 4)).toBe(false);
    expect(jsonTooDeep('['.repeat(2 * 4 + 2), 4)).toBe(true);
  });
});

describe('valueTooDeep', () => {
  it('measures a parsed value with a stack of its own, at any depth', () => {
    expect(valueTooDeep(JSON.parse(nested(MAX_JSON_DEPTH)), MAX_JSON_DEPTH)).toBe(false);
    expect(valueTooDeep(JSON.parse(nested(MAX_JSON_DEPTH + 1)), MAX_JSON_DEPTH)).toBe(true);
    expect(valueTooDeep(JSON.parse(nested(100_000)), MAX_JSON_DEPTH)).toBe(true);
    expect(valueTooDeep({ a: 1, b: 'x', c: null }, 1)).toBe(false);
    expect(valueTooDeep('text', 0)).toBe(false);
  });

  it('walks a shared value again from deeper, and finds a cycle too deep', () => {
    const shared = [[1]];
    expect(valueTooDeep({ near: shared, far: [[[shared]]] }, 5)).toBe(true); // 1 + 3 + 2 through `far`
    expect(valueTooDeep({ near: shared, far: [[[shared]]] }, 6)).toBe(false);
    const cycle: unknown[] = [];
    cycle.push(cycle);
    expect(valueTooDeep(cycle, MAX_JSON_DEPTH)).toBe(true);
  });
});
