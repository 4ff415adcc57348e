import { describe, expect, it } from 'vitest';
import { type PathEntry, PathMatcher, type PathMatcherOptions } from './path-matcher.js';

const core: PathMatcherOptions = { malformedEscapes: 'no-match' };
const downstream: PathMatcherOptions = { trimTrailingSlashes: true, malformedEscapes: 'keep' };

const route = (methods: string | string[], pattern: string, value = `${methods} ${pattern}`): PathEntry<string> => ({
  methods: typeof methods === 'string' ? [methods] : methods,
  pattern,
  value,
});

describe('PathMatcher', () => {
  it('finds static paths and decodes parameters', () => {
    const matcher = new PathMatcher([route('GET', '/sandbox/health'), route('GET', '/sandbox/connections/:connectionId/records/:objectType')], core);
    expect(matcher.match('GET', '/sandbox/health')).toEqual({ kind: 'found', value: 'GET /sandbox/health', params: {} });
    expect(matcher.match('GET', '/sandbox/connections/a%20b/records/contact')).toEqual({
      kind: 'found',
      value: 'GET /sandbox/connections/:connectionId/records/:objectType',
      params: { connectionId: 'a b', objectType: 'contact' },
    });
    expect(matcher.match('GET', '/sandbox/nothing')).toEqual({ kind: 'not-found' });
    // A parameter takes a whole, non-empty segment.
    expect(matcher.match('GET', '/sandbox/connections//records/contact')).toEqual({ kind: 'not-found' });
  });

  it('prefers a static segment to a parameter at the same position, left to right, whatever the declaration order', () => {
    const routes = [
      route('GET', 'v1/:collection/:id'),
      route('GET', 'v1/:collection/search'),
      route('GET', 'v1/persons/:id'),
      route('GET', 'v1/persons/search'),
    ];
    for (const order of [routes, [...routes].reverse()]) {
      const matcher = new PathMatcher(order, downstream);
      expect(matcher.match('GET', 'v1/persons/search')).toMatchObject({ value: 'GET v1/persons/search', params: {} });
      // The first difference decides: a static collection beats a static last segment.
      expect(matcher.match('GET', 'v1/persons/7')).toMatchObject({ value: 'GET v1/persons/:id', params: { id: '7' } });
      expect(matcher.match('GET', 'v1/deals/search')).toMatchObject({ value: 'GET v1/:collection/search', params: { collection: 'deals' } });
      expect(matcher.match('GET', 'v1/deals/7')).toMatchObject({ value: 'GET v1/:collection/:id', params: { collection: 'deals', id: '7' } });
    }
  });

  it('falls through to a less specific pattern that takes the method', () => {
    const matcher = new PathMatcher([route('POST', 'objects/:type/search'), route(['GET', 'PATCH'], 'objects/:type/:id')], downstream);
    expect(matcher.match('GET', 'objects/contacts/search')).toMatchObject({ kind: 'found', value: 'GET,PATCH objects/:type/:id', params: { id: 'search' } });
    expect(matcher.match('POST', 'objects/contacts/search')).toMatchObject({ kind: 'found', value: 'POST objects/:type/search' });
  });

  it('keeps the first route declared for the same method and pattern', () => {
    const matcher = new PathMatcher([route('GET', 'a/:id', 'first'), route('GET', 'a/:id', 'second'), route('GET', 'a/:key', 'other name')], downstream);
    expect(matcher.match('GET', 'a/1')).toMatchObject({ value: 'first', params: { id: '1' } });
  });

  it('lists the methods a path takes, in declaration order, when the method is not one of them', () => {
    const matcher = new PathMatcher(
      [
        route('PUT', '/x/:id/chaos'),
        route('GET', '/x/:id/chaos'),
        route('DELETE', '/x/:id/:part'),
        route('GET', '/x/:id/:part'),
        route('POST', '/static'),
        route('GET', '/static'),
      ],
      core,
    );
    expect(matcher.match('POST', '/x/1/chaos')).toEqual({ kind: 'method-not-allowed', allowed: ['PUT', 'GET', 'DELETE'] });
    expect(matcher.match('PUT', '/x/1/other')).toEqual({ kind: 'method-not-allowed', allowed: ['DELETE', 'GET'] });
    expect(matcher.match('PATCH', '/static')).toEqual({ kind: 'method-not-allowed', allowed: ['POST', 'GET'] });
  });

  it('core: a trailing slash is a segment of its own, a malformed %-escape matches no parameter', () => {
    const matcher = new PathMatcher([route('GET', '/sandbox/connections'), route('GET', '/sandbox/deliveries/:eventId')], core);
    expect(matcher.match('GET', '/sandbox/connections/')).toEqual({ kind: 'not-found' });
    expect(matcher.match('GET', '/sandbox/deliveries/1/')).toEqual({ kind: 'not-found' });
    expect(matcher.match('GET', '/sandbox/deliveries/%E0%A4%A')).toEqual({ kind: 'not-found' });
  });

  it('simulated systems: trailing slashes are dropped, a malformed %-escape is kept as sent', () => {
    const matcher = new PathMatcher([route('GET', 'v1/persons'), route('GET', 'v1/persons/:id')], downstream);
    expect(matcher.match('GET', 'v1/persons///')).toMatchObject({ kind: 'found', value: 'GET v1/persons' });
    expect(matcher.match('GET', 'v1/persons/7/')).toMatchObject({ params: { id: '7' } });
    expect(matcher.match('GET', 'v1/persons/%E0%A4%A')).toMatchObject({ params: { id: '%E0%A4%A' } });
    expect(matcher.match('GET', 'v1/persons/caf%C3%A9')).toMatchObject({ params: { id: 'café' } });
    expect(matcher.match('DELETE', 'v1/persons/')).toEqual({ kind: 'method-not-allowed', allowed: ['GET'] });
  });
});
