import { describe, expect, it } from 'vitest';
import { Random } from './random.js';
import { foldCase, wildcardMatcher } from './wildcard.js';

/**
 * The matcher against the anchored RegExps the simulated systems built before it (kept here as
 * the oracle), on many patterns and values, and on the inputs that made those RegExps backtrack
 * for seconds.
 */

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** SOQL LIKE as salesforce-query built it: `%` any run, `_` one character, case-insensitive, `.` matching line breaks. */
const soqlRegExp = (pattern: string) => new RegExp(`^${escapeRegExp(pattern).replace(/%/g, '.*').replace(/_/g, '.')}$`, 'is');
/** HubSpot CONTAINS_TOKEN as hubspot-search built it (on lower-cased text): `*` any run within a line. */
const hubspotRegExp = (pattern: string) => new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`);

const soql = (pattern: string) => wildcardMatcher(pattern, { any: '%', one: '_', ignoreCase: true });
const hubspot = (pattern: string) => wildcardMatcher(pattern, { any: '*', withinLines: true });

// Letters whose case rules differ (ß, ſ, K, ı, σ/ς, ᾀ), RegExp metacharacters, line breaks and the wildcards themselves.
const TEXT = 'aAbBsS._ \n\r\u2028ßſK\u212aıIiσςΣ\u1f80\u1f88$^()[]\\|+?{}-';
const PATTERN = `${TEXT}%%%%__**`;

function cases(seed: number, count: number, text = TEXT, patternText = PATTERN): Array<[string, string]> {
  const random = new Random(seed);
  const out: Array<[string, string]> = [];
  for (let i = 0; i < count; i++) {
    const pattern = random.chars(random.uint32() % 9, patternText);
    // Half the values are built from the pattern, so that many of them match.
    const value =
      i % 2 === 0
        ? random.chars(random.uint32() % 13, text)
        : [...pattern].map((c) => (c === '%' || c === '*' ? random.chars(random.uint32() % 4, text) : c === '_' ? random.chars(1, text) : c)).join('');
    out.push([pattern, value]);
  }
  return out;
}

describe('wildcardMatcher', () => {
  it('answers as the SOQL LIKE RegExp did: % and _, any case, regex metacharacters as themselves', () => {
    // Many characters (case rules, metacharacters), and few (repeated segments that overlap).
    const all = [...cases(1, 20_000), ...cases(3, 20_000, 'abA', 'ab%%_')];
    const differ = all.filter(([pattern, value]) => soql(pattern)(value) !== soqlRegExp(pattern).test(value));
    expect(differ).toEqual([]);
    // The cases are worth something: thousands match, thousands do not.
    expect(all.filter(([pattern, value]) => soql(pattern)(value)).length).toBeGreaterThan(2000);
  });

  it('answers as the HubSpot CONTAINS_TOKEN RegExp did: * within a line, case as given', () => {
    const all = [...cases(2, 20_000), ...cases(4, 20_000, 'ab\n', 'ab**')];
    const differ = all.filter(([pattern, value]) => hubspot(pattern)(value) !== hubspotRegExp(pattern).test(value));
    expect(differ).toEqual([]);
    expect(all.filter(([pattern, value]) => hubspot(pattern)(value)).length).toBeGreaterThan(2000);
  });

  it('takes wildcard characters marked literal as themselves (SOQL \\% and \\_), against a RegExp that escapes them', () => {
    const random = new Random(5);
    const differ: Array<[string, number[], string]> = [];
    let matched = 0;
    for (const [pattern, value] of [...cases(6, 20_000), ...cases(7, 20_000, 'ab%_', 'ab%%__')]) {
      // Some of the pattern's wildcard characters, drawn, stand for themselves.
      const literalAt = new Set([...pattern].flatMap((c, i) => ((c === '%' || c === '_') && random.uint32() % 2 === 0 ? [i] : [])));
      const source = [...pattern].map((c, i) => (literalAt.has(i) ? escapeRegExp(c) : c === '%' ? '.*' : c === '_' ? '.' : escapeRegExp(c))).join('');
      const expected = new RegExp(`^${source}$`, 'is').test(value);
      if (expected) matched++;
      if (wildcardMatcher(pattern, { any: '%', one: '_', ignoreCase: true }, literalAt)(value) !== expected) differ.push([pattern, [...literalAt], value]);
    }
    expect(differ).toEqual([]);
    expect(matched).toBeGreaterThan(2000);
    expect(wildcardMatcher('L50%tag', { any: '%', one: '_' }, new Set([3]))('L50Xtag')).toBe(false);
    expect(wildcardMatcher('L50%tag', { any: '%', one: '_' }, new Set([3]))('L50%tag')).toBe(true);
  });

  it('anchors at both ends and handles empty patterns, empty segments and runs of wildcards', () => {
    expect(soql('')('')).toBe(true);
    expect(soql('')('a')).toBe(false);
    expect(soql('%')('')).toBe(true);
    expect(soql('%%')('anything')).toBe(true);
    expect(soql('a%')('abc')).toBe(true);
    expect(soql('a%')('cab')).toBe(false);
    expect(soql('%c')('abc')).toBe(true);
    expect(soql('%b%')('abc')).toBe(true);
    expect(soql('a%%c')('ac')).toBe(true);
    expect(soql('a%b%c')('abbc')).toBe(true);
    expect(soql('a%b%bb')('axbb')).toBe(false);
    expect(soql('ab%ba')('aba')).toBe(false);
    expect(soql('_')('')).toBe(false);
    expect(soql('_b_')('AbC')).toBe(true);
    expect(soql('%a_c%')('xxAbcyy')).toBe(true);
    expect(soql('a.c')('abc')).toBe(false);
    expect(soql('a.c')('A.C')).toBe(true);
    expect(soql('100%')('100 percent')).toBe(true);
    expect(soql('%\n%')('one\ntwo')).toBe(true);
    expect(hubspot('one*two')('one\ntwo')).toBe(false);
    expect(hubspot('one*\n*two')('one, \n and two')).toBe(true);
    expect(hubspot('one*\n*two')('one\r\ntwo')).toBe(false);
  });

  it('folds case as a case-insensitive RegExp does, code unit by code unit', () => {
    expect(foldCase('Straße \u017f \u212a \u0131 σς')).toBe('STRAßE \u017f \u212a \u0131 ΣΣ');
    expect(foldCase('abc')).toBe('ABC');
    // Every code unit folds to one the RegExp takes as the same, and units that fold alike are the same to it.
    const unit = (code: number) => `\\u${code.toString(16).padStart(4, '0')}`;
    const byFold = new Map<string, number[]>();
    for (let code = 0; code < 0x10000; code++) {
      const folded = foldCase(String.fromCharCode(code));
      byFold.set(folded, [...(byFold.get(folded) ?? []), code]);
    }
    expect([...byFold.keys()].filter((folded) => folded.length !== 1)).toEqual([]);
    const apart = [...byFold.values()].flatMap((codes) =>
      codes.filter((code) => !new RegExp(`^${unit(codes[0]!)}$`, 'i').test(String.fromCharCode(code))).map(unit),
    );
    expect(apart).toEqual([]);
    // ...and the folding does something: hundreds of groups of units that differ only by case.
    expect([...byFold.values()].filter((codes) => codes.length > 1).length).toBeGreaterThan(500);
  });

  it('answers at once where a backtracking RegExp takes exponential time', () => {
    const value = 'a'.repeat(100_000);
    expect(soql('%a%a%a%a%a%b')(value)).toBe(false);
    expect(soql('%a%a%a%a%a%a')(value)).toBe(true);
    expect(soql(`%${'a_'.repeat(2000)}b%`)(value)).toBe(false);
    expect(soql(`%${'a_'.repeat(2000)}%`)(value)).toBe(true);
    expect(soql(`${'_'.repeat(99_999)}`)(value)).toBe(false);
    expect(soql(`${'_'.repeat(100_000)}`)(value)).toBe(true);
    expect(hubspot('*a*a*a*a*a*b')(value)).toBe(false);
    expect(hubspot(`*${'a*'.repeat(5000)}`)(value)).toBe(true);
    expect(hubspot(`${'*a'.repeat(5000)}*b`)(`${value} ${value}`)).toBe(false);
  });
});
