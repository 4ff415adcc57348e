// The shared wildcard matcher (src/shared/wildcard.ts) against the anchored RegExps SOQL LIKE and
// HubSpot CONTAINS_TOKEN used to build: ordinary patterns over many names, and `%a%a%a%b` over a
// run of a's, where the RegExp backtracks through every way of placing the a's (time grows as
// the length to the power of the number of `%`, so exponentially with the pattern) and the
// matcher does one pass. Figures are ratios on the same machine and process; not part of
// `npm test`. Run after `npm run build`:
// node bench/wildcard.mjs
import { wildcardMatcher } from '../dist/shared/wildcard.js';

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const soqlRegExp = (pattern) => new RegExp(`^${escapeRegExp(pattern).replace(/%/g, '.*').replace(/_/g, '.')}$`, 'is');
const soql = (pattern) => wildcardMatcher(pattern, { any: '%', one: '_', ignoreCase: true });
const hubspotRegExp = (pattern) => new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`);
const hubspot = (pattern) => wildcardMatcher(pattern, { any: '*', withinLines: true });

/** Milliseconds per round of `run`, the best of 5 (after a warm-up). */
function time(run, rounds = 5) {
  run();
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

const first = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'John', 'Katherine', 'Ken'];
const last = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Backus', 'Johnson', 'Thompson'];
const names = Array.from({ length: 10_000 }, (_, i) => `${first[i % 10]} ${last[(i * 7) % 10]}son ${i}`);

console.log('ordinary patterns over 10,000 names (ms for all of them; ratio matcher / RegExp):');
for (const [label, pattern, make, makeRegExp] of [
  ["SOQL LIKE 'Gr%'", 'Gr%', soql, soqlRegExp],
  ["SOQL LIKE '%son%'", '%son%', soql, soqlRegExp],
  ["SOQL LIKE 'J_hn %'", 'J_hn %', soql, soqlRegExp],
  ['HubSpot CONTAINS_TOKEN *knuth*', '*knuth*', hubspot, hubspotRegExp],
]) {
  const lower = makeRegExp === hubspotRegExp ? names.map((name) => name.toLowerCase()) : names;
  const matcher = make(pattern);
  const regExp = makeRegExp(pattern);
  let a = 0;
  let b = 0;
  const mine = time(() => (a = lower.filter(matcher).length));
  const theirs = time(() => (b = lower.filter((name) => regExp.test(name)).length));
  if (a !== b) throw new Error(`${label}: the matcher found ${a}, the RegExp ${b}`);
  console.log(`  ${label.padEnd(34)} matcher ${mine.toFixed(2)} ms, RegExp ${theirs.toFixed(2)} ms, ratio ${(mine / theirs).toFixed(2)}`);
}

console.log("'%a%a%a%b' over a run of a's (ms for one value; doubling the length multiplies the RegExp's time by about 16):");
for (const length of [50, 100, 200]) {
  const value = 'a'.repeat(length);
  const mine = time(() => soql('%a%a%a%b')(value));
  const theirs = time(() => soqlRegExp('%a%a%a%b').test(value), 1);
  console.log(
    `  ${String(length).padStart(4)} characters: matcher ${mine.toFixed(3)} ms, RegExp ${theirs.toFixed(1)} ms, ratio ${(theirs / mine).toFixed(0)} in the matcher's favour`,
  );
}
const long = 'a'.repeat(1_000_000);
console.log(`  1,000,000 characters: matcher ${time(() => soql('%a%a%a%b')(long)).toFixed(1)} ms (the RegExp is not tried: it would take years)`);
