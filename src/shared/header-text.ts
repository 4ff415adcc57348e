import { utf8Bytes } from './text-codec.js';

/**
 * Text made safe to send as an HTTP header value. A header carries visible ASCII, spaces and tabs; node refuses
 * anything else (`ERR_INVALID_CHAR`, after the route has done its work) and fetch's `Headers` too. What a request
 * gave (a field name with `Ω`, a CR, a NUL) is percent-encoded as UTF-8 (`%CE%A9`), as a URL would carry it.
 */

const UNSAFE = /[^\t\x20-\x7e]/;
const UNSAFE_OR_PERCENT = /[^\t\x20-\x24\x26-\x7e]/;

/**
 * The text with every character a header value may not carry percent-encoded, and `%` too when `escapePercent` (the
 * text is a name a client may decode: its own `%` must not read as an escape). Unchanged when nothing needs it.
 *
 * @example headerText('contact.Ωmega', true) // 'contact.%CE%A9mega'
 */
export function headerText(text: string, escapePercent = false): string {
  const unsafe = escapePercent ? UNSAFE_OR_PERCENT : UNSAFE;
  if (!unsafe.test(text)) return text;
  let out = '';
  for (const char of text) {
    if (!unsafe.test(char)) {
      out += char;
      continue;
    }
    for (const byte of utf8Bytes(char)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Whether a header value goes out as it is. */
export const isHeaderSafe = (value: string): boolean => !UNSAFE.test(value);
