import * as z from 'zod';
import type { Clock } from '../clock/clock.js';
import { ApiError, ErrorCode } from '../shared/errors.js';
import { timeMsSchema } from '../shared/state-schemas.js';

/** A link token as a snapshot keeps it, naming its tenant as `owner` says. */
export const linkTokenSchema = <O extends z.ZodRawShape>(owner: O) =>
  z
    .object({
      token: z.string().min(1),
      ...owner,
      expiresAt: timeMsSchema(),
      /** Set once the link widget made a public token with it: a widget session links one account. */
      used: z.boolean(),
    })
    .strict();

/** A link token's facts: the API token that asked for it, when it expires, whether the widget used it. */
export interface LinkToken {
  apiKey: string;
  expiresAt: number;
  used: boolean;
}

export interface LinkTokensOptions {
  clock: Clock;
  ttlMs: number;
  /** Hex for a new token: drawn where public tokens are drawn too (the registry's token stream), so their order is kept. */
  tokenHex: (length: number) => string;
}

/**
 * The link tokens API tokens ask for (`POST /link/token`) to open the link widget: minted,
 * checked, used up by the widget, and kept in the registry's state.
 */
export class LinkTokens {
  private readonly tokens = new Map<string, LinkToken>();

  constructor(private readonly options: LinkTokensOptions) {}

  create(apiKey: string): string {
    const linkToken = `link_${this.options.tokenHex(32)}`;
    this.tokens.set(linkToken, { apiKey, expiresAt: this.options.clock.now() + this.options.ttlMs, used: false });
    return linkToken;
  }

  /** A link token the widget may still use; else a 401 that says why (unknown, used, expired). */
  check(linkToken: string): LinkToken {
    const link = this.tokens.get(linkToken);
    if (!link) throw new ApiError(401, ErrorCode.INVALID_LINK_TOKEN, 'linkToken is not a valid link token', { field: 'linkToken' });
    if (link.used) {
      throw new ApiError(401, ErrorCode.LINK_TOKEN_USED, 'linkToken has already been used to link an account; ask for a new one', { field: 'linkToken' });
    }
    if (link.expiresAt <= this.options.clock.now()) {
      throw new ApiError(401, ErrorCode.LINK_TOKEN_EXPIRED, 'linkToken has expired; ask for a new one', { field: 'linkToken' });
    }
    return link;
  }

  /** The widget's confirmation: the link token checked, then used up (a widget session links one account). */
  use(linkToken: string): LinkToken {
    const link = this.check(linkToken);
    link.used = true;
    return link;
  }

  /**
   * The link token a `POST /sandbox/public-token` names: the API token's own, unused and
   * unexpired; else a 401 (used, when it is the caller's; invalid or expired otherwise).
   */
  checkNamedBy(apiKey: string, linkToken: string): void {
    const link = this.tokens.get(linkToken);
    if (link?.apiKey === apiKey && link.used) {
      throw new ApiError(401, ErrorCode.LINK_TOKEN_USED, 'linkToken has already been used to link an account; ask for a new one', { field: 'linkToken' });
    }
    if (!link || link.apiKey !== apiKey || link.expiresAt <= this.options.clock.now()) {
      throw new ApiError(401, ErrorCode.INVALID_LINK_TOKEN, 'linkToken is invalid or expired', { field: 'linkToken' });
    }
  }

  /** The API token holding a link token; undefined when none does. */
  holderOf(linkToken: string): string | undefined {
    return this.tokens.get(linkToken)?.apiKey;
  }

  /** Forgets an API token's link tokens (a reset of its tenancy). */
  forget(apiKey: string): void {
    for (const [token, link] of this.tokens) if (link.apiKey === apiKey) this.tokens.delete(token);
  }

  /** Every link token, oldest first, for a snapshot. */
  state(): Array<{ token: string } & LinkToken> {
    return [...this.tokens].map(([token, link]) => ({ token, ...link }));
  }

  /** Adds a snapshot's link tokens. */
  add(saved: ReadonlyArray<{ token: string } & LinkToken>): void {
    for (const { token, ...link } of saved) this.tokens.set(token, link);
  }
}
