import type { CrmObjectType } from '../model/crm.js';
import type { NativeOrg } from '../model/integrations.js';
import type { EngagementAddressPart } from '../model/vocabularies.js';
import type { Pieces } from '../shared/pieces.js';
import type { ConnectionData } from '../store/connection-data.js';
import type { DownstreamFault } from './faults.js';

export const PASSTHROUGH_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type PassthroughMethod = (typeof PASSTHROUGH_METHODS)[number];

/** A request to the simulated downstream system, as the passthrough validated it. */
export interface DownstreamRequest {
  method: PassthroughMethod;
  /** Relative to the API base URL, without leading slash or query: `crm/v3/objects/contacts/123`. */
  path: string;
  /** The passthrough `query`, values as strings; of a repeated key, its last value. */
  query: Record<string, string>;
  /**
   * Every query value in order, repeated keys included (`properties=a&properties=b`), as the
   * passthrough received them; read it through `queryValues`. Absent where a request is built
   * from `query` alone.
   */
  search?: URLSearchParams;
  /** The passthrough `body`, if any. */
  body: unknown;
}

/** What the downstream answered: reported as `{ headers, url, statusCode, body }` by the passthrough. */
export interface DownstreamResponse {
  statusCode: number;
  headers: Record<string, string>;
  /** Native body; `null` for an empty answer (e.g. 204). */
  body: unknown;
}

/**
 * A native answer, or the walk that makes it in pieces: a read that walks a whole collection (a search, a filtered
 * query) answers in pieces of `WALK_PIECE` records (./walk-in-pieces.ts), for the caller to run at once or with turns
 * of the event loop between (docs/decisions/0042).
 */
export type DownstreamAnswer = DownstreamResponse | Pieces<DownstreamResponse>;

/** What a simulated system works on: the connection's own records, shared with the unified endpoints. */
export interface DownstreamContext {
  org: NativeOrg;
  /** Writes through `data.create/update/delete` so they emit OBJECT_CHANGE events like any other change. */
  data: ConnectionData;
  /** Sandbox time, ms. */
  now: number;
}

/** How a system answers a pending downstream fault (./faults.ts) instead of the call. */
export interface FaultAnswers {
  /** The system's answer when its rate limit is hit. */
  rateLimited(request: DownstreamRequest, fault: DownstreamFault, now: number): DownstreamResponse;
  /** The system's answer to a server failure. */
  serverError(request: DownstreamRequest, fault: DownstreamFault, now: number): DownstreamResponse;
}

/** Per unified type, a list of its unified fields; a type left out has none listed. */
export type FieldsByType = Partial<Record<CrmObjectType, readonly string[]>>;

/**
 * What the unified layer knows of a system without loading it (`<system>/facts.ts`, gathered by
 * SYSTEM_FACTS in ./facts.ts): light data, read at startup. Every member is there for every system,
 * empty where it has nothing to say, so a new system must say.
 */
export interface SystemFacts {
  /**
   * What its native API lets a client do to an email. The service's document refuses unified Email
   * writes on Pipedrive only ("Pipedrive: Not supported"): Pipedrive's mailbox API is read-only.
   * Elsewhere a native create logs an email (Salesforce `sobjects/EmailMessage`, HubSpot
   * `crm/v3/objects/emails`, Zoho `{Module}/{id}/actions/send_mail`); natively only HubSpot updates
   * any email, Salesforce a draft alone (a sent one takes IsExternallyVisible, custom fields and
   * Status New→Read), Zoho none. The engagement platforms have no CRM email object here.
   */
  readonly emailWrites: { readonly create: boolean; readonly update: boolean };
  /**
   * Where an engagement platform keeps a contact's (prospect's, person's) address: native fields the
   * CRM Contact has no place for, stored with the record's native values (`extra.native`). A part
   * the platform has no field for is not kept there; a CRM keeps a contact's address on the contact (`{}`).
   */
  readonly contactAddressFields: Partial<Record<EngagementAddressPart, string>>;
  /**
   * Unified CRM fields its native objects have no field for (the document's "Not supported by
   * Pipedrive"): absent from its unified records, and not written by a unified write (`{}`: it keeps
   * every field). `test/unified-crm.test.ts` checks these against the systems' field maps.
   */
  readonly unmapped: FieldsByType;
  /** Unified CRM fields it keeps but an update cannot change there (a Pipedrive lead's email and phones: its person's). */
  readonly notUpdated: FieldsByType;
  /**
   * Fields of the unified engagement Contact and Account its native objects have no field for:
   * absent from its unified records and ignored (and named) by a unified write, as {@link unmapped}.
   * Address parts are named `address.<part>`; an account's `address.line2` no platform keeps (the
   * CRM account has one street line). A CRM answers no engagement objects: both lists are empty.
   * `test/unified-engagement.test.ts` checks these against the systems' field maps.
   */
  readonly engagementUnmapped: { readonly Contact: readonly string[]; readonly Account: readonly string[] };
}
