import { describe, expect, it } from 'vitest';
import type { CrmRecord } from '../model/crm.js';
import { isPieces } from '../shared/pieces.js';
import { nestedCustom } from './custom-fields.js';
import { field, parseTime, percent, readOnly, time, timeFormat } from './fields.js';
import { hubspotCustom } from './hubspot/formats.js';
import { outreachCustom } from './outreach/formats.js';
import { pipedriveTimeFormat } from './pipedrive/formats.js';
import { FieldError, type NativeObject, translate } from './rest-engine.js';
import { answering, dispatch, intParam, type Route, type RouteErrors, reply, requestUuid } from './router.js';
import { salesforceCustom, salesforceTimeFormat } from './salesforce/formats.js';
import type { DownstreamContext, DownstreamRequest } from './types.js';
import { collectInPieces, WALK_PIECE } from './walk-in-pieces.js';
import { zohoTimeFormat } from './zoho/formats.js';

/** The shared pieces, on their own: time and percent conversions, write translation, routing, custom fields. */

describe('times', () => {
  const iso = '2024-05-01T12:00:00.000Z';

  it('renders a unified time in each system’s format', () => {
    expect(salesforceTimeFormat(iso)).toBe('2024-05-01T12:00:00.000+0000');
    expect(zohoTimeFormat(iso)).toBe('2024-05-01T12:00:00+00:00');
    expect(pipedriveTimeFormat(iso)).toBe('2024-05-01 12:00:00');
    expect(timeFormat.date(iso)).toBe('2024-05-01');
  });

  it('reads any of those formats back, offsets applied', () => {
    for (const native of [
      '2024-05-01T12:00:00.000+0000',
      '2024-05-01T12:00:00+00:00',
      '2024-05-01 12:00:00',
      '2024-05-01T14:00:00+02:00',
      '2024-05-01T12:00Z',
      1714564800000,
      '1714564800000',
    ]) {
      expect(parseTime(native, 'When')).toBe(iso);
    }
    expect(parseTime('2024-05-01', 'When')).toBe('2024-05-01T00:00:00.000Z');
    expect(parseTime(null, 'When')).toBeNull();
  });

  it('names the native field when a time is not one', () => {
    expect(() => parseTime('next tuesday', 'CloseDate')).toThrow(expect.objectContaining({ field: 'CloseDate', kind: 'value' }));
    expect(() => parseTime('2024-13-45', 'CloseDate')).toThrow(FieldError);
    expect(() => parseTime({ at: 1 }, 'CloseDate')).toThrow(expect.objectContaining({ kind: 'type' }));
    expect(time(salesforceTimeFormat).in('2024-05-01T12:00:00.000+0000', 'X')).toBe(iso);
  });
});

describe('percent', () => {
  it('turns the unified probability string into a percent and back, without float noise', () => {
    expect(percent.out('0.4')).toBe(40);
    expect(percent.out('0.07')).toBe(7);
    expect(percent.out('1')).toBe(100);
    expect(percent.in(40, 'Probability')).toBe('0.4');
    expect(percent.in('7', 'Probability')).toBe('0.07');
    expect(percent.in(0, 'Probability')).toBe('0');
    expect(() => percent.in('high', 'Probability')).toThrow(expect.objectContaining({ field: 'Probability', kind: 'type' }));
  });
});

describe('translate', () => {
  const account: NativeObject = {
    type: 'Account',
    name: 'Account',
    fields: [field('Name', 'name'), field('BillingStreet', 'address.street'), field('BillingCity', 'address.city'), readOnly('CreatedDate', 'createdTime')],
    custom: salesforceCustom,
  };
  const context = undefined as unknown as DownstreamContext;
  const strict = { unknown: 'reject', readOnly: 'reject' } as const;
  const lenient = { unknown: 'ignore', readOnly: 'ignore' } as const;
  const current = {
    name: 'Acme',
    address: { street: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'United States' },
  } as unknown as CrmRecord;

  it('writes one part of a nested field over the current value', () => {
    expect(translate(account, { BillingCity: 'Shelbyville' }, strict, context, current).input).toEqual({
      address: { street: '1 Main St', city: 'Shelbyville', state: 'IL', postalCode: '62701', country: 'United States' },
    });
  });

  it('leaves what a create does not name empty rather than generated', () => {
    expect(translate(account, { Name: 'Globex', BillingStreet: '2 Elm St' }, strict, context).input).toEqual({
      name: 'Globex',
      address: { street: '2 Elm St', city: null, state: null, postalCode: null, country: null },
    });
    expect(translate(account, { BillingCity: 'Paris' }, strict, context).input).toMatchObject({ name: null });
  });

  it('sorts custom fields out of the body', () => {
    expect(translate(account, { Name: 'X', Region__c: 'EMEA', Score__c: 5 }, strict, context, current)).toEqual({
      input: { name: 'X' },
      custom: { region: 'EMEA', score: 5 },
    });
  });

  it('rejects or ignores unknown and read-only fields, by the system’s policy', () => {
    expect(() => translate(account, { Nickname: 'X' }, strict, context, current)).toThrow(expect.objectContaining({ field: 'Nickname', kind: 'unknown' }));
    expect(() => translate(account, { CreatedDate: 'X' }, strict, context, current)).toThrow(
      expect.objectContaining({ field: 'CreatedDate', kind: 'readOnly' }),
    );
    expect(() => translate(account, { Other__c: 'X' }, strict, context, current)).toThrow(expect.objectContaining({ kind: 'unknown' }));
    expect(translate(account, { Nickname: 'X', CreatedDate: 'X', Name: 'Y' }, lenient, context, current).input).toEqual({ name: 'Y' });
  });

  it('wants the required fields on create only', () => {
    const required = { ...account, required: ['Name'] };
    expect(() => translate(required, { BillingCity: 'Paris' }, strict, context)).toThrow(expect.objectContaining({ field: 'Name', kind: 'required' }));
    expect(translate(required, { BillingCity: 'Paris' }, strict, context, current).input).toHaveProperty('address');
  });
});

describe('custom fields', () => {
  it('names them the way each system does', () => {
    const custom = { region: 'NA', tier: 'Gold', source: 'Web', score: 12 };
    expect(salesforceCustom.read(custom)).toEqual({ Region__c: 'NA', Tier__c: 'Gold', Source__c: 'Web', Score__c: 12 });
    expect(hubspotCustom.read(custom)).toEqual({ region: 'NA', tier: 'Gold', source: 'Web', score: '12' });
    expect(outreachCustom.read({ score: 12, region: 'NA' })).toEqual({ custom1: 'NA', custom4: '12' });
    expect(nestedCustom('custom_fields').read(custom)).toEqual({ custom_fields: custom });
  });

  it('reads written values back to their keys, numbers from string-only systems', () => {
    expect(outreachCustom.write('custom4', '42')).toEqual({ score: 42 });
    expect(outreachCustom.write('custom9', 'x')).toBeUndefined();
    expect(hubspotCustom.write('tier', 'Gold')).toEqual({ tier: 'Gold' });
    expect(nestedCustom('custom_fields').write('custom_fields', { region: 'APAC' })).toEqual({ region: 'APAC' });
    expect(() => nestedCustom('custom_fields').write('custom_fields', { mood: 'good' })).toThrow(
      expect.objectContaining({ field: 'custom_fields.mood', kind: 'unknown' }),
    );
    expect(() => salesforceCustom.write('Region__c', ['NA'])).toThrow(expect.objectContaining({ kind: 'type' }));
  });
});

describe('dispatch', () => {
  const seen: string[] = [];
  const routes: Route[] = [
    { method: 'GET', pattern: 'things/:id', run: (params) => reply(200, { id: params.id }, {}) },
    { method: ['PUT', 'DELETE'], pattern: 'things/:id', run: () => reply(204, null, {}) },
    {
      method: 'POST',
      pattern: 'things',
      run: () => {
        throw new FieldError('name', 'name is required', 'required');
      },
    },
    // A long walk, in pieces: it counts what it looked at; an odd count at the end is bad input.
    {
      method: 'GET',
      pattern: 'walks/:count',
      run: (params) =>
        (function* () {
          const seen = (yield* collectInPieces(Array.from({ length: Number(params.count) }), (_item) => true)).length;
          if (seen % 2 === 1) throw new FieldError('count', 'count must be even', 'param');
          return reply(200, { seen }, {});
        })(),
    },
  ];
  const errors: RouteErrors = {
    notFound: () => reply(404, 'nope', {}),
    methodNotAllowed: (_request, allowed) => reply(405, allowed, {}),
    invalid: (error) => {
      seen.push(error.message);
      return reply(400, error.field, {});
    },
  };
  const { answer, handle } = answering((request, context) => dispatch(routes, errors, request, context));
  const run = (method: DownstreamRequest['method'], path: string) =>
    handle({ method, path, query: {}, body: undefined }, undefined as unknown as DownstreamContext);

  it('runs the matching route with decoded params, a trailing slash tolerated', () => {
    expect(run('GET', 'things/a%20b/')).toMatchObject({ statusCode: 200, body: { id: 'a b' }, headers: { 'content-type': 'application/json;charset=utf-8' } });
    expect(run('DELETE', 'things/1').statusCode).toBe(204);
  });

  it('tells an unknown path from a known one with another method', () => {
    expect(run('GET', 'things/1/more')).toMatchObject({ statusCode: 404 });
    expect(run('GET', 'widgets')).toMatchObject({ statusCode: 404 });
    expect(run('PATCH', 'things/1')).toMatchObject({ statusCode: 405, body: ['GET', 'PUT', 'DELETE'] });
  });

  it('answers a FieldError from a route as the system’s 4xx', () => {
    expect(run('POST', 'things')).toMatchObject({ statusCode: 400, body: 'name' });
    expect(seen).toEqual(['name is required']);
  });

  it('answers a walk in pieces (one piece of WALK_PIECE records) or at once, and a FieldError in its pieces as the 4xx', () => {
    const context = undefined as unknown as DownstreamContext;
    const walk = answer({ method: 'GET', path: 'walks/1200', query: {}, body: undefined }, context);
    if (!isPieces(walk)) throw new Error('a walk of 1,200 records should answer in pieces');
    let pieces = 0;
    for (let step = walk.next(); !step.done; step = walk.next()) pieces++;
    expect(pieces).toBe(Math.floor(1200 / WALK_PIECE));
    expect(run('GET', 'walks/1200')).toMatchObject({ statusCode: 200, body: { seen: 1200 } });
    expect(run('GET', 'walks/1201')).toMatchObject({ statusCode: 400, body: 'count' });
    expect(seen.at(-1)).toBe('count must be even');
  });
});

describe('intParam and requestUuid', () => {
  it('defaults, clamps and refuses paging numbers', () => {
    expect(intParam(undefined, 'limit', 10, 1, 100)).toBe(10);
    expect(intParam('500', 'limit', 10, 1, 100)).toBe(100);
    expect(intParam(7, 'limit', 10, 1, 100)).toBe(7);
    expect(() => intParam('0', 'limit', 10, 1, 100)).toThrow(expect.objectContaining({ field: 'limit', kind: 'param' }));
    expect(() => intParam('1.5', 'limit', 10, 1, 100)).toThrow(FieldError);
  });

  it('derives the same UUID from the same request, another from another', () => {
    const request: DownstreamRequest = { method: 'GET', path: 'a/b', query: { x: '1' }, body: undefined };
    expect(requestUuid(request)).toBe(requestUuid({ ...request }));
    expect(requestUuid(request)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(requestUuid({ ...request, path: 'a/c' })).not.toBe(requestUuid(request));
  });
});
