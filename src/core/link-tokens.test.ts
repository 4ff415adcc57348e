import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../clock/clock.js';
import { ApiError } from '../shared/errors.js';
import { LinkTokens } from './link-tokens.js';

const START = Date.parse('2025-01-01T00:00:00Z');
const TTL = 60_000;

function tokens() {
  const clock = new VirtualClock(START, (error) => {
    throw error;
  });
  let drawn = 0;
  const links = new LinkTokens({ clock, ttlMs: TTL, tokenHex: (length) => String(++drawn).padStart(length, '0') });
  return { clock, links };
}

function errorCodeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    return (error as ApiError).errorCode;
  }
  return undefined;
}

describe('LinkTokens', () => {
  it('mints from the hex it is given, for the API token that asked, valid for the time to live', () => {
    const { links } = tokens();
    const token = links.create('key-a');
    expect(token).toBe(`link_${'1'.padStart(32, '0')}`);
    expect(links.check(token)).toEqual({ apiKey: 'key-a', expiresAt: START + TTL, used: false });
    expect(links.holderOf(token)).toBe('key-a');
  });

  it('is used up once by the widget, and says why it refuses a token (unknown, used, expired)', async () => {
    const { clock, links } = tokens();
    const used = links.create('key-a');
    const expired = links.create('key-a');
    expect(links.use(used).used).toBe(true);
    expect(errorCodeOf(() => links.use(used))).toBe('LINK_TOKEN_USED');
    expect(errorCodeOf(() => links.check('link_unknown'))).toBe('INVALID_LINK_TOKEN');
    await clock.advance(TTL);
    expect(errorCodeOf(() => links.check(expired))).toBe('LINK_TOKEN_EXPIRED');
  });

  it('takes a token named in a public-token request only from its own API token, unused and unexpired', () => {
    const { links } = tokens();
    const token = links.create('key-a');
    expect(errorCodeOf(() => links.checkNamedBy('key-a', token))).toBeUndefined();
    expect(errorCodeOf(() => links.checkNamedBy('key-b', token))).toBe('INVALID_LINK_TOKEN');
    links.use(token);
    expect(errorCodeOf(() => links.checkNamedBy('key-a', token))).toBe('LINK_TOKEN_USED');
  });

  it('saves and adds its tokens in order, and forgets one API token’s only', () => {
    const { links } = tokens();
    const a = links.create('key-a');
    const b = links.create('key-b');
    const saved = links.state();
    expect(saved.map(({ token }) => token)).toEqual([a, b]);
    const { links: restored } = tokens();
    restored.add(saved);
    expect(restored.state()).toEqual(saved);
    restored.forget('key-a');
    expect(restored.state().map(({ token }) => token)).toEqual([b]);
  });
});
