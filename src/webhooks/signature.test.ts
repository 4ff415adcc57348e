import { createHash } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { signPayload, verifySignature } from './signature.js';

const accessToken = 'access_0123';
const body = '{"eventId":"abc","type":"STATUS_CHANGE","data":{"status":"READY"}}';
const timestamp = '1735689600';

describe('signatures', () => {
  it('are the hex SHA-256 of accessToken + body + timestamp', () => {
    const expected = createHash('sha256').update(`${accessToken}${body}${timestamp}`).digest('hex');
    expect(signPayload(accessToken, body, timestamp)).toBe(expected);
  });

  it('match node:crypto on non-ASCII text, and verify Uint8Array bodies without Buffer', () => {
    const text = '{"name":"Zoë Ångström 日本 🚀","bom":"\uFEFF"}';
    const expected = createHash('sha256').update(`${accessToken}${text}${timestamp}`, 'utf8').digest('hex');
    expect(signPayload(accessToken, text, timestamp)).toBe(expected);
    const bytes = new TextEncoder().encode(text);
    expect(verifySignature({ accessToken, body: bytes, timestamp, signature: expected })).toBe(true);
    // A body that starts with a BOM is verified over the bytes as sent, BOM included.
    const withBom = `\uFEFF${text}`;
    const bomSignature = createHash('sha256').update(`${accessToken}${withBom}${timestamp}`, 'utf8').digest('hex');
    expect(verifySignature({ accessToken, body: new TextEncoder().encode(withBom), timestamp, signature: bomSignature })).toBe(true);
  });

  it('are the same from node:crypto as from the JavaScript SHA-256 a browser uses, lone surrogates included', () => {
    for (const text of [body, '{"name":"Zoë 日本 🚀"}', '{"broken":"\uD83D"}', '{"low":"\uDC00x"}', '']) {
      const javascript = bytesToHex(sha256(new TextEncoder().encode(`${accessToken}${text}${timestamp}`)));
      expect(signPayload(accessToken, text, timestamp)).toBe(javascript);
    }
  });

  it('verify when everything matches, and fail when anything differs', () => {
    const signature = signPayload(accessToken, body, timestamp);
    expect(verifySignature({ accessToken, body, timestamp, signature })).toBe(true);
    expect(verifySignature({ accessToken, body: Buffer.from(body), timestamp: Number(timestamp), signature })).toBe(true);
    expect(verifySignature({ accessToken: 'access_other', body, timestamp, signature })).toBe(false);
    expect(verifySignature({ accessToken, body: body.replace('READY', 'ready'), timestamp, signature })).toBe(false);
    // Re-serialised JSON is not the body that was signed.
    expect(verifySignature({ accessToken, body: JSON.stringify(JSON.parse(body), null, 2), timestamp, signature })).toBe(false);
    expect(verifySignature({ accessToken, body, timestamp: '1735689601', signature })).toBe(false);
    expect(verifySignature({ accessToken, body, timestamp, signature: signature.toUpperCase() })).toBe(false);
    expect(verifySignature({ accessToken, body, timestamp, signature: 'abc' })).toBe(false);
    expect(verifySignature({ accessToken, body, timestamp: undefined, signature })).toBe(false);
    expect(verifySignature({ accessToken, body, timestamp, signature: null })).toBe(false);
  });

  it('reject stale and future timestamps when given a tolerance', () => {
    const signature = signPayload(accessToken, body, timestamp);
    const at = (seconds: number) => (Number(timestamp) + seconds) * 1000;
    expect(verifySignature({ accessToken, body, timestamp, signature, toleranceSeconds: 300, now: at(299) })).toBe(true);
    expect(verifySignature({ accessToken, body, timestamp, signature, toleranceSeconds: 300, now: at(301) })).toBe(false);
    expect(verifySignature({ accessToken, body, timestamp, signature, toleranceSeconds: 300, now: at(-301) })).toBe(false);
  });
});
