import type { CrmRecord } from '../../model/crm.js';
import { needleFinder } from '../../shared/needles.js';
import { mapPieces, type Pieces } from '../../shared/pieces.js';
import { customOf, displayName, FieldError, type NativeFields } from '../rest-engine.js';
import { intParam, type Route, reply } from '../router.js';
import type { DownstreamAnswer, DownstreamContext, DownstreamRequest } from '../types.js';
import { collectInPieces, sortInPieces } from '../walk-in-pieces.js';
import { COLLECTIONS, failure, HEADERS, PIPELINE } from './objects.js';

/**
 * Pipedrive's search endpoints (`v1/persons/search`, `v1/organizations/search`,
 * `v1/deals/search`): a `term` over the fields asked for, optionally exact, with `start`/`limit`
 * paging and `{ items: [{ result_score, item }] }` answers.
 * https://developers.pipedrive.com/docs/api/v1/Persons#searchPersons
 */

type Entity = CrmRecord & { associations: Record<string, unknown> };

interface Searchable {
  type: 'person' | 'organization' | 'deal';
  collection: 'persons' | 'organizations' | 'deals';
  /** The searchable fields and their text values for a record. */
  fields: Record<string, (record: Entity, extra: Record<string, unknown>) => string[]>;
  /** Query filters the endpoint takes, by the association they test. */
  filters: Record<string, string>;
  item(record: Entity, context: DownstreamContext): NativeFields;
}

const text = (...values: unknown[]) => values.filter((value): value is string => typeof value === 'string' && value !== '');
const customText = (extra: Record<string, unknown>) => Object.values(customOf(extra)).flatMap((value) => (value === null ? [] : [String(value)]));
const idOf = (nativeId: string) => Number(nativeId);

function linked(record: Entity, assoc: string, context: DownstreamContext, type: 'Account' | 'Contact' | 'User'): CrmRecord | undefined {
  const held = record.associations[assoc];
  const id = Array.isArray(held) ? held[0] : held;
  return typeof id === 'string' ? context.data.crm[type].get(id) : undefined;
}

const owner = (record: Entity, context: DownstreamContext) => {
  const user = linked(record, 'ownerUserId', context, 'User');
  return user ? { id: idOf(user.nativeId) } : null;
};
const organization = (record: Entity, context: DownstreamContext) => {
  const account = linked(record, 'accountIds', context, 'Account') as CrmRecord<'Account'> | undefined;
  return account ? { id: idOf(account.nativeId), name: account.name, address: account.address?.city ?? null } : null;
};

const SEARCHABLE: Record<string, Searchable> = {
  persons: {
    type: 'person',
    collection: 'persons',
    fields: {
      name: (record) => text(displayName(record)),
      email: (record) => text((record as CrmRecord<'Contact'>).email),
      phone: (record) => text((record as CrmRecord<'Contact'>).phone, (record as CrmRecord<'Contact'>).mobilePhone),
      notes: () => [],
      custom_fields: (_record, extra) => customText(extra),
    },
    filters: { organization_id: 'accountIds' },
    item: (record, context) => {
      const contact = record as CrmRecord<'Contact'>;
      return {
        id: idOf(contact.nativeId),
        type: 'person',
        name: displayName(contact),
        phones: text(contact.phone, contact.mobilePhone),
        emails: text(contact.email),
        visible_to: 3,
        owner: owner(record, context),
        organization: organization(record, context),
        custom_fields: [],
        notes: [],
      };
    },
  },
  organizations: {
    type: 'organization',
    collection: 'organizations',
    fields: {
      name: (record) => text((record as CrmRecord<'Account'>).name),
      address: (record) => {
        const address = (record as CrmRecord<'Account'>).address;
        return address ? text(address.street, address.city, address.state, address.postalCode, address.country) : [];
      },
      notes: () => [],
      custom_fields: (_record, extra) => customText(extra),
    },
    filters: {},
    item: (record, context) => {
      const account = record as CrmRecord<'Account'>;
      return {
        id: idOf(account.nativeId),
        type: 'organization',
        name: account.name,
        address: account.address ? text(account.address.street, account.address.city, account.address.country).join(', ') || null : null,
        visible_to: 3,
        owner: owner(record, context),
        custom_fields: [],
        notes: [],
      };
    },
  },
  deals: {
    type: 'deal',
    collection: 'deals',
    fields: {
      title: (record) => text((record as CrmRecord<'Deal'>).name),
      notes: () => [],
      custom_fields: (_record, extra) => customText(extra),
    },
    filters: { person_id: 'contactIds', organization_id: 'accountIds' },
    item: (record, context) => {
      const deal = record as CrmRecord<'Deal'>;
      const person = linked(record, 'contactIds', context, 'Contact');
      const stage = PIPELINE.indexOf(deal.stage ?? '');
      return {
        id: idOf(deal.nativeId),
        type: 'deal',
        title: deal.name,
        value: deal.amount,
        currency: 'USD',
        status: deal.isWon ? 'won' : deal.isClosed ? 'lost' : 'open',
        visible_to: 3,
        owner: owner(record, context),
        stage: { id: stage >= 0 ? stage + 1 : PIPELINE.length, name: deal.stage },
        person: person ? { id: idOf(person.nativeId), name: displayName(person) } : null,
        organization: organization(record, context),
        custom_fields: [],
        notes: [],
      };
    },
  },
};

/** How well a value matches: 1 for the whole value, less for a word that starts with it, less again inside one (`firstAt`: the term's finder); 0 for no match. */
function score(values: string[], term: string, exact: boolean, firstAt: (text: string) => number): number {
  let best = 0;
  for (const value of values) {
    const v = value.toLowerCase();
    if (v === term) return 1;
    if (exact) continue;
    if (v.split(/[\s@.,;:/-]+/).some((word) => word.startsWith(term))) best = Math.max(best, 0.5);
    else if (firstAt(v) >= 0) best = Math.max(best, 0.25);
  }
  return best;
}

function search(target: Searchable, request: DownstreamRequest, context: DownstreamContext): DownstreamAnswer {
  const exact = request.query.exact_match === 'true' || request.query.exact_match === '1';
  const term = (request.query.term ?? '').trim().toLowerCase();
  if (term.length < (exact ? 1 : 2)) {
    return failure(400, `Validation failed: term: Parameter 'term' must be at least ${exact ? 1 : 2} characters long`);
  }
  // Each field once (a field named again adds no value to score), and only the endpoint's own: `constructor` is no field.
  const asked = request.query.fields ? [...new Set(request.query.fields.split(',').map((name) => name.trim()))] : Object.keys(target.fields);
  const unknown = asked.find((name) => !Object.hasOwn(target.fields, name));
  if (unknown !== undefined) {
    return failure(
      400,
      `Validation failed: fields: Parameter 'fields' must be one of ${Object.keys(target.fields).join(', ')}; got ${JSON.stringify(unknown)}`,
    );
  }
  const start = intParam(request.query.start, 'start', 0, 0);
  const limit = intParam(request.query.limit, 'limit', 100, 1, 500);
  const type = COLLECTIONS[target.collection]![0]!.type;
  const filters = Object.entries(target.filters).flatMap(([param, assoc]) => {
    const value = request.query[param];
    if (value === undefined || value === '') return [];
    if (!/^\d+$/.test(value)) throw new FieldError(param, `Validation failed: ${param}: Parameter '${param}' must be an integer`, 'param');
    return [{ assoc, nativeId: value }];
  });
  const status = target.type === 'deal' ? request.query.status : undefined;
  const firstAt = needleFinder(term);
  const passes = (record: Entity): boolean => {
    if (status && SEARCHABLE.deals!.item(record, context).status !== status) return false;
    return filters.every(({ assoc, nativeId }) => {
      const held = record.associations[assoc];
      const ids = Array.isArray(held) ? held : held ? [held] : [];
      return ids.some((id) => {
        const other = context.data.crm[assoc === 'contactIds' ? 'Contact' : 'Account'].get(String(id));
        return other?.nativeId === nativeId;
      });
    });
  };
  // Every record is scored, and the hits sorted: in pieces (decision 0042).
  function* ranked(): Pieces<Array<{ record: Entity; score: number }>> {
    const hits = yield* collectInPieces(context.data.crm[type].entries(), (entry) => {
      const record = entry.record as Entity;
      const values = asked.flatMap((name) => target.fields[name]!(record, entry.extra));
      const s = score(values, term, exact, firstAt);
      return s !== 0 && passes(record) ? { record, score: s } : undefined;
    });
    // Best matches first; equal scores keep store order (the sort is stable).
    return yield* sortInPieces(hits, (a, b) => b.score - a.score);
  }
  return mapPieces(ranked(), (hits) => {
    const page = hits.slice(start, start + limit);
    const more = start + page.length < hits.length;
    return reply(
      200,
      {
        success: true,
        data: { items: page.map(({ record, score: s }) => ({ result_score: s, item: target.item(record, context) })) },
        additional_data: { pagination: { start, limit, more_items_in_collection: more, ...(more ? { next_start: start + limit } : {}) } },
      },
      HEADERS,
    );
  });
}

/** `v1/{persons,organizations,deals}/search`. */
export function searchRoutes(): Route[] {
  return Object.values(SEARCHABLE).map((target) => ({
    method: 'GET' as const,
    pattern: `v1/${target.collection}/search`,
    run: (_params, request, context) => search(target, request, context),
  }));
}
