import { FieldError, type Found, findRecord, isPlainObject, type NativeFields } from '../rest-engine.js';
import { intParam, isResponse, type Route, reply } from '../router.js';
import type { DownstreamContext, DownstreamRequest, DownstreamResponse } from '../types.js';
import { COLLECTIONS, collectionNamed, errors, HEADERS, type HubspotObject, hubspotError, type Link, OBJECT_TYPE_IDS } from './objects.js';

/**
 * HubSpot associations v4 (`crm/v4/objects/{from}/{id}/associations/{to}`): list, link with the
 * default type or a given one, unlink, and the batch forms. Links are the unified associations,
 * so a change here is the record's UPDATE, and the other end follows.
 * https://developers.hubspot.com/docs/api/crm/associations/v4
 */

interface Side {
  collection: string;
  target: HubspotObject;
}

/** How `from` links to `to`: its own link, or the far end's seen backwards. */
interface Pairing {
  /** The record whose association field is written. */
  writer: 'from' | 'to';
  link: Link;
  /** The type id from `from` to `to`. */
  typeId: number;
}

const sideOf = (name: string | undefined): Side | undefined => {
  const collection = collectionNamed(name);
  return collection ? { collection, target: COLLECTIONS[collection]! } : undefined;
};

function pairing(from: Side, to: Side): Pairing | undefined {
  const own = from.target.links[to.collection];
  const back = to.target.links[from.collection];
  if (own) return { writer: 'from', link: own, typeId: own.typeId };
  if (back) return { writer: 'to', link: back, typeId: back.reverseTypeId ?? back.typeId };
  return undefined;
}

const objectId = (nativeId: string) => (/^\d{1,15}$/.test(nativeId) ? Number(nativeId) : nativeId);
const typesOf = (typeId: number) => [{ category: 'HUBSPOT_DEFINED', typeId, label: null }];

/**
 * The records a record is linked to on the `to` side, as a function of the record. When only the
 * far end names the link, the records there that point back are gathered in one scan, so a batch
 * of inputs costs one pass over the far end, not one each.
 */
function linker(from: Side, to: Side, context: DownstreamContext): (found: Found) => string[] {
  const own = from.target.links[to.collection];
  if (own) {
    return (found) => {
      const ids = (found.entry.record.associations as Record<string, string[] | string | null>)[own.assoc] ?? [];
      return (Array.isArray(ids) ? ids : [ids]).flatMap((id) => context.data.crm[to.target.type].get(id)?.nativeId ?? []);
    };
  }
  const back = to.target.links[from.collection];
  if (!back) return () => [];
  const pointing = new Map<string, string[]>();
  for (const { record } of context.data.crm[to.target.type].entries()) {
    const held = (record.associations as Record<string, string[] | string | null>)[back.assoc];
    for (const id of new Set(Array.isArray(held) ? held : typeof held === 'string' ? [held] : [])) {
      if (!pointing.has(id)) pointing.set(id, []);
      pointing.get(id)!.push(record.nativeId);
    }
  }
  return (found) => pointing.get(found.entry.record.id) ?? [];
}

/** Adds or removes one link, writing the end that holds it: an UPDATE of that record. */
function setLink(pair: Pairing, fromFound: Found, toFound: Found, on: boolean, context: DownstreamContext): void {
  const [writer, other] = pair.writer === 'from' ? [fromFound, toFound] : [toFound, fromFound];
  const current = (writer.entry.record.associations as Record<string, string[] | string | null>)[pair.link.assoc];
  const list = Array.isArray(current) ? current : current ? [current] : [];
  const has = list.includes(other.entry.record.id);
  if (has === on) return;
  const next = on ? [...list, other.entry.record.id] : list.filter((id) => id !== other.entry.record.id);
  const value = pair.link.assoc.endsWith('Ids') ? next : (next.at(-1) ?? null);
  context.data.update(writer.object.type, writer.entry.record.id, { associations: { [pair.link.assoc]: value } });
}

interface Resolved {
  from: Side;
  to: Side;
  pair: Pairing;
}

function resolve(params: Record<string, string>, request: DownstreamRequest, context: DownstreamContext): Resolved | DownstreamResponse {
  const from = sideOf(params.from);
  const to = sideOf(params.to);
  if (!from || !to) return errors.notFound(request, context);
  const pair = pairing(from, to);
  if (!pair) {
    return hubspotError(400, 'VALIDATION_ERROR', `No association types exist between ${from.target.name} and ${to.target.name}`, request);
  }
  return { from, to, pair };
}

function record(side: Side, id: string, request: DownstreamRequest, context: DownstreamContext): Found | DownstreamResponse {
  return (
    findRecord([side.target], id, context.data) ??
    hubspotError(404, 'OBJECT_NOT_FOUND', `No ${side.target.name} with id ${id} exists`, request, { context: { id: [id] } })
  );
}

/**
 * HubSpot's "Primary" type of a pair that has one (contact→company 1, company→contact 2,
 * deal→company 5, company→deal 6: the association type id docs, the SDK's `AssociationTypes`).
 * The unified model knows one kind of link, so a primary one links the same records.
 */
const PRIMARY_TYPE: Readonly<Record<number, number>> = { 279: 1, 280: 2, 341: 5, 342: 6 };

/** The association type ids a labelled PUT asks for; each must be a HubSpot-defined one for the pair. */
function checkTypes(body: unknown, pair: Pairing): void {
  if (!Array.isArray(body)) throw new FieldError('body', 'Invalid input JSON: expected an array of association types', 'body');
  for (const [i, item] of body.entries()) {
    const typeId = isPlainObject(item) ? Number(item.associationTypeId) : Number.NaN;
    const category = isPlainObject(item) ? item.associationCategory : undefined;
    if (category !== 'HUBSPOT_DEFINED' || (typeId !== pair.typeId && typeId !== PRIMARY_TYPE[pair.typeId])) {
      throw new FieldError(
        `[${i}].associationTypeId`,
        `association type ${JSON.stringify(isPlainObject(item) ? item.associationTypeId : item)} (${String(category)}) is not valid between these objects; use HUBSPOT_DEFINED ${pair.typeId}`,
        'reference',
      );
    }
  }
}

const OBJECTS = 'crm/v4/objects/:from/:fromId/associations';

type Run = (resolved: Resolved, params: Record<string, string>, request: DownstreamRequest, context: DownstreamContext) => DownstreamResponse;
const resolved =
  (run: Run): Route['run'] =>
  (params, request, context) => {
    const found = resolve(params, request, context);
    return isResponse(found) ? found : run(found, params, request, context);
  };

/** Links one pair of records, answering HubSpot's body for the form used. */
function link(labelled: boolean): Run {
  return ({ from, to, pair }, params, request, context) => {
    const a = record(from, params.fromId!, request, context);
    if (isResponse(a)) return a;
    const b = record(to, params.toId!, request, context);
    if (isResponse(b)) return b;
    if (labelled) checkTypes(request.body, pair);
    setLink(pair, a, b, true, context);
    if (labelled) {
      return reply(
        201,
        {
          fromObjectTypeId: OBJECT_TYPE_IDS[from.collection],
          fromObjectId: objectId(a.entry.record.nativeId),
          toObjectTypeId: OBJECT_TYPE_IDS[to.collection],
          toObjectId: objectId(b.entry.record.nativeId),
          labels: [],
        },
        HEADERS,
      );
    }
    const at = new Date(context.now).toISOString();
    const spec = { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: pair.typeId };
    return reply(
      200,
      {
        status: 'COMPLETE',
        results: [{ from: { id: a.entry.record.nativeId }, to: { id: b.entry.record.nativeId }, associationSpec: spec }],
        startedAt: at,
        completedAt: at,
      },
      HEADERS,
    );
  };
}

/** A batch read takes at most 1000 inputs (HubSpot changelog, "Batch Read Limit for HubSpot Associations API", 2025-02-10). */
const BATCH_READ_LIMIT = 1000;

function inputsOf(body: unknown): NativeFields[] {
  const inputs = isPlainObject(body) ? body.inputs : undefined;
  if (!Array.isArray(inputs) || inputs.some((input) => !isPlainObject(input))) {
    throw new FieldError('inputs', 'Invalid input JSON: expected an object with "inputs"', 'body');
  }
  return inputs as NativeFields[];
}
const idIn = (value: unknown): string | undefined =>
  isPlainObject(value) && (typeof value.id === 'string' || typeof value.id === 'number') ? String(value.id) : undefined;

/** The v4 association routes. */
export function associationRoutes(): Route[] {
  return [
    {
      method: 'GET',
      pattern: `${OBJECTS}/:to`,
      run: resolved(({ from, to, pair }, params, request, context) => {
        const a = record(from, params.fromId!, request, context);
        if (isResponse(a)) return a;
        const all = linker(from, to, context)(a);
        const after = intParam(request.query.after, 'after', 0, 0);
        const limit = intParam(request.query.limit, 'limit', 500, 1, 500);
        const page = all.slice(after, after + limit);
        const next = after + limit;
        return reply(
          200,
          {
            results: page.map((id) => ({ toObjectId: objectId(id), associationTypes: typesOf(pair.typeId) })),
            ...(next < all.length ? { paging: { next: { after: String(next) } } } : {}),
          },
          HEADERS,
        );
      }),
    },
    { method: 'PUT', pattern: `${OBJECTS}/default/:to/:toId`, run: resolved(link(false)) },
    {
      method: ['PUT', 'DELETE'],
      pattern: `${OBJECTS}/:to/:toId`,
      run: resolved((found, params, request, context) => {
        if (request.method === 'PUT') return link(true)(found, params, request, context);
        const a = record(found.from, params.fromId!, request, context);
        if (isResponse(a)) return a;
        const b = record(found.to, params.toId!, request, context);
        if (isResponse(b)) return b;
        setLink(found.pair, a, b, false, context);
        return reply(204, null, HEADERS);
      }),
    },
    {
      method: 'POST',
      pattern: 'crm/v4/associations/:from/:to/batch/:action',
      run: resolved(({ from, to, pair }, params, request, context) => {
        const inputs = inputsOf(request.body);
        const at = new Date(context.now).toISOString();
        if (params.action === 'read') {
          if (inputs.length > BATCH_READ_LIMIT)
            throw new FieldError('inputs', `Batch input cannot exceed ${BATCH_READ_LIMIT} inputs, got ${inputs.length}`, 'body');
          const linksOf = linker(from, to, context);
          const results: NativeFields[] = [];
          const missing: string[] = [];
          for (const input of inputs) {
            const id = idIn(input);
            const a = id === undefined ? undefined : findRecord([from.target], id, context.data);
            if (!a) {
              missing.push(String(id));
              continue;
            }
            results.push({ from: { id }, to: linksOf(a).map((toId) => ({ toObjectId: objectId(toId), associationTypes: typesOf(pair.typeId) })) });
          }
          const errorsPart = missing.length
            ? {
                numErrors: missing.length,
                errors: missing.map((id) => ({
                  status: 'error',
                  category: 'OBJECT_NOT_FOUND',
                  message: `No ${from.target.name} with id ${id} exists`,
                  context: { fromObjectId: [id] },
                })),
              }
            : {};
          return reply(missing.length ? 207 : 200, { status: 'COMPLETE', results, ...errorsPart, startedAt: at, completedAt: at }, HEADERS);
        }
        if (params.action !== 'archive') return errors.notFound(request, context);
        // `{ from: { id }, to: [{ id }] }`: unlinks each; ids that name nothing are skipped.
        for (const input of inputs) {
          const a = findRecord([from.target], idIn(input.from) ?? '', context.data);
          const targets = Array.isArray(input.to) ? input.to : [];
          for (const item of targets) {
            const b = findRecord([to.target], idIn(item) ?? '', context.data);
            if (a && b) setLink(pair, a, b, false, context);
          }
        }
        return reply(204, null, HEADERS);
      }),
    },
    {
      method: 'POST',
      pattern: 'crm/v4/associations/:from/:to/batch/:action/:kind',
      run: resolved(({ from, to, pair }, params, request, context) => {
        if (params.action !== 'associate' || params.kind !== 'default') return errors.notFound(request, context);
        const inputs = inputsOf(request.body);
        // Every pair is checked before any is linked.
        const pairs = inputs.map((input, i) => {
          const a = findRecord([from.target], idIn(input.from) ?? '', context.data);
          const b = findRecord([to.target], idIn(input.to) ?? '', context.data);
          if (!a || !b)
            throw new FieldError(
              `inputs[${i}]`,
              `inputs[${i}]: no ${a ? to.target.name : from.target.name} with id ${JSON.stringify(idIn(a ? input.to : input.from) ?? null)}`,
              'reference',
            );
          return [a, b] as const;
        });
        for (const [a, b] of pairs) setLink(pair, a, b, true, context);
        const at = new Date(context.now).toISOString();
        const spec = { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: pair.typeId };
        return reply(
          200,
          {
            status: 'COMPLETE',
            results: pairs.map(([a, b]) => ({ from: { id: a.entry.record.nativeId }, to: { id: b.entry.record.nativeId }, associationSpec: spec })),
            startedAt: at,
            completedAt: at,
          },
          HEADERS,
        );
      }),
    },
  ];
}
