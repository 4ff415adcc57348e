/**
 * UTF-8 and base64url without `Buffer`, so the core runs in browsers as well as Node. The
 * results are the same as Buffer's (lone surrogates become U+FFFD, a leading BOM is kept).
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The UTF-8 bytes of `text`. @example utf8Bytes('é') // Uint8Array [0xc3, 0xa9] */
export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The text of UTF-8 `bytes`; bad sequences read as U+FFFD. @example utf8Text(utf8Bytes('é')) // 'é' */
export function utf8Text(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * How many bytes `text` takes as UTF-8, counted without encoding it (a lone surrogate counts as
 * the 3 bytes of U+FFFD, as Buffer.byteLength counts it). @example utf8ByteLength('€') // 3
 */
export function utf8ByteLength(text: string): number {
  // Long text: the native encoder is faster than a loop in JS, even with the allocation.
  if (text.length > 4096) return encoder.encode(text).length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** `text` as UTF-8, in unpadded base64url. @example toBase64Url('a:b') // 'YTpi' */
export function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of utf8Bytes(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The text that unpadded base64url `encoded` stands for, as leniently as Buffer reads it:
 * characters outside the alphabet are skipped, and a last lone character is ignored.
 *
 * @example fromBase64Url('YTpi') // 'a:b'
 */
export function fromBase64Url(encoded: string): string {
  let base64 = encoded
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .replace(/[^A-Za-z0-9+/]/g, '');
  if (base64.length % 4 === 1) base64 = base64.slice(0, -1);
  const binary = atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '='));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return utf8Text(bytes);
}
