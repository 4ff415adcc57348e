import type { Sandbox } from '../core/sandbox.js';
import type { CrmObjectType, UnifiedRecord } from '../model/crm.js';
import { ApiError, ErrorCode } from '../shared/errors.js';
import { UNIFIED_CRM_OBJECTS, type UnifiedObject } from '../unified/crm-objects.js';

/**
 * The answer keys of each unified object's routes, as `GET /crm/contact` (`{ contact }`) and
 * `GET /crm/contacts` (`{ contacts }`) answer them: what types a page. `src/testing/unified.test.ts`
 * checks it against the objects' descriptions (src/unified/crm-objects.ts).
 */
export interface UnifiedKeys {
  User: { one: 'user'; many: 'users' };
  Contact: { one: 'contact'; many: 'contacts' };
  Deal: { one: 'deal'; many: 'deals' };
  Account: { one: 'account'; many: 'accounts' };
  Lead: { one: 'lead'; many: 'leads' };
  Note: { one: 'note'; many: 'notes' };
  Task: { one: 'task'; many: 'tasks' };
  Event: { one: 'event'; many: 'events' };
  EventAttendee: { one: 'eventAttendee'; many: 'eventAttendees' };
  Email: { one: 'email'; many: 'emails' };
}

/** The unified types a create or an update takes: every one but the read-only users. */
export type WritableUnifiedType = Exclude<CrmObjectType, 'User'>;

/** A page of a list or a search, as the route answers it: `{ contacts: Contact[], nextPageCursor }`, the cursor null on the last page. */
export type UnifiedPage<T extends CrmObjectType> = { [K in UnifiedKeys[T]['many']]: UnifiedRecord<T>[] } & { nextPageCursor: string | null };

export interface UnifiedPageOptions {
  /** Page size, 1 to 200 (the route's default 100). */
  limit?: number;
  /** The previous page's nextPageCursor; absent or null for the first page. */
  cursor?: string | null;
  /** Also answer each record's native shape, as `additional`. */
  allFields?: boolean;
}

/** The filters of a search, per field an object of operators: `{ email: { endsWith: '@acme.example' } }` (see docs/reference/unified-objects.md). */
export type UnifiedFilters = Record<string, Record<string, unknown>>;

/** The fields of a create or an update: the body's `contact`, `deal`… object, as the route takes it (fields and link ids such as `accountId`). */
export type UnifiedFields = Record<string, unknown>;

const objectOf = (type: CrmObjectType): UnifiedObject => {
  const object = UNIFIED_CRM_OBJECTS.find((candidate) => candidate.type === type);
  if (!object) throw new TypeError(`${JSON.stringify(type)} is not a unified object; one of ${UNIFIED_CRM_OBJECTS.map((item) => item.type).join(', ')}`);
  return object;
};

/**
 * A connection's unified CRM records, read and written through the sandbox's own routes
 * (`sandbox.handle`, the core the dev server and the MSW handlers call): each method is one
 * request of the service's API with the connection's accessToken, and answers what that route
 * answers. A non-2xx answer is thrown as an {@link ApiError} with the route's status, errorCode,
 * message and metadata (a 409 `CONNECTION_SYNCING` while the connection is NEW_CONNECTION:
 * link it `INITIAL_SYNCED` or `READY`).
 *
 * @example
 * const { connectionId } = await crm.linkConnection({ integrationId: 'hubspot', status: 'READY' });
 * const contacts = crm.unified(connectionId);
 * const { id } = await contacts.create('Contact', { lastName: 'Lovelace', email: 'ada@example.com' });
 * expect(await contacts.get('Contact', { email: 'ada@example.com' })).toMatchObject({ id, lastName: 'Lovelace' });
 * const page = await contacts.list('Contact', { limit: 10 }); // { contacts: Contact[], nextPageCursor: string | null }
 */
export class UnifiedClient {
  readonly connectionId: string;
  private readonly sandbox: Sandbox;

  constructor(sandbox: Sandbox, connectionId: string) {
    this.sandbox = sandbox;
    this.connectionId = connectionId;
  }

  /** `GET /crm/<objects>`: one page, oldest first. */
  async list<T extends CrmObjectType>(type: T, options: UnifiedPageOptions = {}): Promise<UnifiedPage<T>> {
    const { limit, cursor, allFields } = options;
    return (await this.send('GET', `/crm/${objectOf(type).many}`, { limit, cursor: cursor ?? undefined, allFields })) as UnifiedPage<T>;
  }

  /** `POST /crm/<objects>/search`: one page of the records that match every filter. */
  async search<T extends CrmObjectType>(type: T, filters: UnifiedFilters, options: UnifiedPageOptions = {}): Promise<UnifiedPage<T>> {
    const { limit, cursor, allFields } = options;
    const body = { filters, ...(limit === undefined ? {} : { limit }), ...(cursor ? { cursor } : {}), ...(allFields === undefined ? {} : { allFields }) };
    return (await this.send('POST', `/crm/${objectOf(type).many}/search`, {}, body)) as UnifiedPage<T>;
  }

  /**
   * Every record of a list (or, with `filters`, of a search): its pages in order, following
   * nextPageCursor until it is null, 200 records a request.
   */
  async all<T extends CrmObjectType>(type: T, options: { filters?: UnifiedFilters; allFields?: boolean } = {}): Promise<UnifiedRecord<T>[]> {
    const key = objectOf(type).listKey as UnifiedKeys[T]['many'];
    const records: UnifiedRecord<T>[] = [];
    let cursor: string | null = null;
    do {
      const page: UnifiedPage<T> =
        options.filters === undefined
          ? await this.list(type, { limit: 200, cursor, allFields: options.allFields })
          : await this.search(type, options.filters, { limit: 200, cursor, allFields: options.allFields });
      records.push(...(page[key] as UnifiedRecord<T>[]));
      cursor = page.nextPageCursor;
    } while (cursor !== null);
    return records;
  }

  /** `GET /crm/<object>`: the record of an id, or found by a lookup the object has (`{ email }` for contacts). */
  async get<T extends CrmObjectType>(type: T, id: string | Record<string, string>, options: { allFields?: boolean } = {}): Promise<UnifiedRecord<T>> {
    const object = objectOf(type);
    const answer = await this.send('GET', `/crm/${object.one}`, { ...(typeof id === 'string' ? { id } : id), allFields: options.allFields });
    return answer[object.key] as UnifiedRecord<T>;
  }

  /** `POST /crm/<object>`: creates a record (its OBJECT_CHANGE CREATE event follows); answers `{ id }`. */
  async create(type: WritableUnifiedType, fields: UnifiedFields): Promise<{ id: string }> {
    const object = objectOf(type);
    return (await this.send('POST', `/crm/${object.one}`, {}, { [object.key]: fields })) as { id: string };
  }

  /** `PATCH /crm/<object>`: changes the fields given (an UPDATE event); answers `{ id }`. */
  async update(type: WritableUnifiedType, id: string, fields: UnifiedFields): Promise<{ id: string }> {
    const object = objectOf(type);
    return (await this.send('PATCH', `/crm/${object.one}`, {}, { id, [object.key]: fields })) as { id: string };
  }

  /** One request with the connection's accessToken (in the query of a GET, in the body otherwise), as its owner's API token. */
  private async send(
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    body?: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const connection = this.sandbox.parts.registry.find(this.connectionId);
    if (!connection) throw ApiError.notFound('Connection', this.connectionId, 'connectionId');
    const params = new URLSearchParams();
    if (method === 'GET') params.set('accessToken', connection.accessToken);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    const response = await this.sandbox.handle({
      method,
      path,
      query: params.toString(),
      headers: { 'service-api-token': connection.apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify({ accessToken: connection.accessToken, ...body }) } : {}),
    });
    const answer = JSON.parse(response.body) as Record<string, unknown>;
    if (response.status >= 300) {
      const { errorCode, message, metadata } = answer as { errorCode?: string; message?: string; metadata?: Record<string, unknown> };
      throw new ApiError(
        response.status,
        (errorCode ?? ErrorCode.INTERNAL_ERROR) as ErrorCode,
        message ?? `${method} ${path} answered ${response.status}`,
        metadata,
      );
    }
    return answer;
  }
}

/**
 * A {@link UnifiedClient} of a connection of any sandbox (a {@link TestSandbox} has it as `crm.unified(connectionId)`).
 *
 * @example const { deals } = await unified(sandbox, connectionId).list('Deal');
 */
export function unified(sandbox: Sandbox, connectionId: string): UnifiedClient {
  return new UnifiedClient(sandbox, connectionId);
}
