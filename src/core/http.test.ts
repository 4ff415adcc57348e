import { describe, expect, it } from 'vitest';
import type { ApiError } from '../shared/errors.js';
import { MAX_JSON_DEPTH, MAX_SNAPSHOT_DEPTH } from '../shared/json-depth.js';
import { depthLimit, isOverBytes, parseJsonBody } from './http.js';

describe('isOverBytes', () => {
  it('decides by length where it can, and counts UTF-8 bytes where it must', () => {
    expect(isOverBytes('a'.repeat(11), 10)).toBe(true); // longer than the limit in any encoding
    expect(isOverBytes('€'.repeat(3), 9)).toBe(false); // 3 units × 3 bytes: at most the limit
    expect(isOverBytes('€'.repeat(4), 10)).toBe(true); // 12 bytes, counted
    expect(isOverBytes('a'.repeat(4) + 'é'.repeat(3), 10)).toBe(false); // 4 + 6 = 10 bytes
    expect(isOverBytes('a'.repeat(5) + 'é'.repeat(3), 10)).toBe(true); // 11 bytes
    expect(isOverBytes(`${'\uD83D\uDE80'.repeat(2)}ab`, 10)).toBe(false); // two 4-byte emoji + 2
    expect(isOverBytes(`${'\uD83D\uDE80'.repeat(2)}abc`, 10)).toBe(true);
  });
});

describe('parseJsonBody', () => {
  const post = (path: string, body: string, method = 'POST') => ({ method, path, query: '', headers: { 'content-type': 'application/json' }, body });
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return error as ApiError;
    }
    throw new Error('accepted');
  };
  const deep = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

  it('refuses a body nested deeper than the limit with a 400 naming the depth, before parsing it', () => {
    expect(parseJsonBody(post('/crm/passthrough', deep(MAX_JSON_DEPTH)))).toHaveProperty('a');
    const error = refusal(() => parseJsonBody(post('/crm/passthrough', deep(MAX_JSON_DEPTH + 1))));
    expect(error.toBody()).toEqual({
      message: `request body is nested more than ${MAX_JSON_DEPTH} levels deep (objects and arrays inside each other)`,
      errorCode: 'INVALID_JSON',
      metadata: { limit: MAX_JSON_DEPTH },
    });
    expect(error.status).toBe(400);
    // 20,000 levels: still that 400 (JSON.parse takes it; what walks the value afterwards would overflow the stack).
    expect(refusal(() => parseJsonBody(post('/crm/passthrough', deep(20_000)))).errorCode).toBe('INVALID_JSON');
  });

  it('lets a snapshot nest twice as deep: it holds values of bodies inside its own shape', () => {
    expect(depthLimit('PUT', '/sandbox/snapshot')).toBe(MAX_SNAPSHOT_DEPTH);
    expect(depthLimit('put', '/sandbox/snapshot')).toBe(MAX_SNAPSHOT_DEPTH);
    expect(depthLimit('GET', '/sandbox/snapshot')).toBe(MAX_JSON_DEPTH);
    expect(parseJsonBody(post('/sandbox/snapshot', deep(MAX_SNAPSHOT_DEPTH), 'PUT'))).toHaveProperty('a');
    expect(refusal(() => parseJsonBody(post('/sandbox/snapshot', deep(MAX_SNAPSHOT_DEPTH + 1), 'PUT'))).metadata).toEqual({ limit: MAX_SNAPSHOT_DEPTH });
  });
});
