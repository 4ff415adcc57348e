import { validateHeaderValue } from 'node:http';
import { describe, expect, it } from 'vitest';
import { headerText, isHeaderSafe } from './header-text.js';

describe('headerText', () => {
  it('percent-encodes what a header may not carry, as UTF-8, and leaves the rest as it is', () => {
    expect(headerText('contact.lastName (not a field of Contact)')).toBe('contact.lastName (not a field of Contact)');
    expect(headerText('contact.Ωmega', true)).toBe('contact.%CE%A9mega');
    expect(headerText('a\r\nb\u0000c\u007f')).toBe('a%0D%0Ab%00c%7F');
    expect(headerText('😀')).toBe('%F0%9F%98%80');
    // A lone surrogate has no UTF-8: it goes as U+FFFD.
    expect(headerText('x\ud800')).toBe('x%EF%BF%BD');
    // A name's own percent sign is encoded too, so that decoding gives the name back.
    expect(headerText('50%', true)).toBe('50%25');
    expect(headerText('50%')).toBe('50%');
    expect(decodeURIComponent(headerText('contact.Ωmega 50% a\r\nb', true))).toBe('contact.Ωmega 50% a\r\nb');
  });

  it('gives what node takes as a header value, whatever the text', () => {
    const all = Array.from({ length: 0x2100 }, (_, code) => String.fromCharCode(code)).join('');
    for (const escapePercent of [false, true]) {
      const value = headerText(all, escapePercent);
      expect(isHeaderSafe(value)).toBe(true);
      expect(() => validateHeaderValue('x-test', value)).not.toThrow();
    }
    expect(isHeaderSafe('Ω')).toBe(false);
  });
});
