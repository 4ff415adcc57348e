import { describe, expect, it } from 'vitest';
import { fromBase64Url, toBase64Url, utf8ByteLength, utf8Bytes, utf8Text } from './text-codec.js';

// Buffer is the reference the core used before: these must agree with it byte for byte.
const samples = ['', 'a', 'ab', 'abc', 'contacts:conn_1:42', 'Zoë Ångström 日本 🚀', '\uFEFFbom', 'lone \uD800 high', 'lone \uDC00 low', 'end \uD83D'];

describe('text codec', () => {
  it('encodes, decodes and counts UTF-8 as Buffer does', () => {
    for (const text of samples) {
      expect(Array.from(utf8Bytes(text))).toEqual(Array.from(Buffer.from(text, 'utf8')));
      expect(utf8Text(utf8Bytes(text))).toBe(Buffer.from(text, 'utf8').toString('utf8'));
      expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
    // Long text takes the encoder's path: the same counts.
    for (const text of samples) expect(utf8ByteLength(text.repeat(600))).toBe(Buffer.byteLength(text.repeat(600), 'utf8'));
    const bad = new Uint8Array([0x61, 0xff, 0xc3, 0x28, 0xe2, 0x82]);
    expect(utf8Text(bad)).toBe(Buffer.from(bad).toString('utf8'));
  });

  it('writes and reads base64url as Buffer does, leniently on bad input', () => {
    for (const text of samples) {
      expect(toBase64Url(text)).toBe(Buffer.from(text, 'utf8').toString('base64url'));
      expect(fromBase64Url(toBase64Url(text))).toBe(Buffer.from(text, 'utf8').toString('utf8'));
    }
    for (const encoded of ['Y', 'YTpiY', 'YT*pi', 'YTpi==', '_-_-', 'AAAAA', '']) {
      expect(fromBase64Url(encoded)).toBe(Buffer.from(encoded, 'base64url').toString('utf8'));
    }
  });
});
