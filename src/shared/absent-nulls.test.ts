import { describe, expect, it } from 'vitest';
import { withoutNulls } from './absent-nulls.js';

const ADDITIONAL = new Set(['additional']);

describe('withoutNulls', () => {
  it('drops null members at every depth, filters included', () => {
    expect(
      withoutNulls(
        {
          contact: { lastName: 'X', email: null, address: { city: null, country: 'UK' } },
          filters: { sequenceId: null, contactId: { equals: 'c', in: null } },
        },
        ADDITIONAL,
      ),
    ).toEqual({ contact: { lastName: 'X', address: { country: 'UK' } }, filters: { contactId: { equals: 'c' } } });
  });

  it('keeps what a native member carries, nulls included, but drops the native member itself when it is null', () => {
    expect(withoutNulls({ contact: { additional: { Phone: null, Nested: { a: null } } } }, ADDITIONAL)).toEqual({
      contact: { additional: { Phone: null, Nested: { a: null } } },
    });
    expect(withoutNulls({ contact: { lastName: 'X', additional: null } }, ADDITIONAL)).toEqual({ contact: { lastName: 'X' } });
    expect(withoutNulls({ body: { properties: { phone: null } }, query: null }, new Set(['additional', 'body', 'query']))).toEqual({
      body: { properties: { phone: null } },
    });
  });

  it('keeps array items as sent (a null item is a value, not an absent member), and objects inside arrays lose their nulls', () => {
    expect(withoutNulls({ to: ['a', null], emails: [{ address: 'a', type: null }] }, ADDITIONAL)).toEqual({ to: ['a', null], emails: [{ address: 'a' }] });
  });

  it('answers the same object when there is no null, and never changes what it was given (a frozen, shared body stays as it is)', () => {
    const plain = Object.freeze({ a: Object.freeze({ b: 1 }) });
    expect(withoutNulls(plain, ADDITIONAL)).toBe(plain);
    const frozen = Object.freeze({ a: Object.freeze({ b: null, c: Object.freeze({ d: 1 }) }) });
    const out = withoutNulls(frozen, ADDITIONAL);
    expect(out).toEqual({ a: { c: { d: 1 } } });
    expect(out.a.c).toBe(frozen.a.c);
    expect(frozen.a).toHaveProperty('b', null);
  });
});
