// Cost of the native query forms through the passthrough (SOQL with WHERE/AND/ORDER BY, a
// relationship field, HubSpot search) against a plain native list page of the same run, as the
// number of contacts grows. Queries filter rendered rows, so they scan the collection: the ratio
// grows with it, while a plain page does not. Run after `npm run build`:
// node bench/passthrough-queries.mjs
import { createSandbox } from '../dist/index.js';

const KEY = 'bench-key';
const sizes = [1_000, 10_000];
const repeats = { 1000: 200, 10000: 20 };

// Every call carries a different, ignored query parameter: the passthrough keeps answers to
// repeated calls (README, "Passthrough answers are kept"), and this measures the queries themselves.
let calls = 0;
async function timed(sandbox, accessToken, request, n) {
  const call = () => {
    const body = JSON.stringify({ accessToken, ...request, query: { ...request.query, bench: String(calls++) } });
    return sandbox.handle({
      method: 'POST',
      path: '/crm/passthrough',
      query: '',
      headers: { 'service-api-token': KEY, 'content-type': 'application/json' },
      body,
    });
  };
  for (let i = 0; i < 3; i++) await call(); // warm up
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await call();
    if (res.status !== 200 || JSON.parse(res.body).statusCode >= 400) throw new Error(`failed: ${res.body.slice(0, 200)}`);
  }
  return (performance.now() - started) / n;
}

for (const size of sizes) {
  const n = repeats[size];
  const dataset = { crm: { Contact: size, Account: Math.max(40, size / 10) } };
  const sf = createSandbox({ seed: 3, clock: 'virtual', apiKeys: [KEY], dataset });
  const hs = createSandbox({ seed: 3, clock: 'virtual', apiKeys: [KEY], dataset });
  const sfToken = sf.connect({ integrationId: 'salesforce' }).accessToken;
  const hsToken = hs.connect({ integrationId: 'hubspot' }).accessToken;
  const plain = await timed(hs, hsToken, { method: 'GET', path: 'crm/v3/objects/contacts', query: { limit: 100 } }, n);
  const rows = [
    ['HubSpot list page (baseline)', plain],
    [
      'SOQL WHERE … AND … ORDER BY LIMIT 100',
      await timed(
        sf,
        sfToken,
        {
          method: 'GET',
          path: 'services/data/v59.0/query',
          query: { q: "SELECT Id, Email FROM Contact WHERE LastName LIKE 'S%' AND Email != null ORDER BY LastName LIMIT 100" },
        },
        n,
      ),
    ],
    [
      'SOQL Account.Name relationship LIMIT 100',
      await timed(sf, sfToken, { method: 'GET', path: 'services/data/v59.0/query', query: { q: 'SELECT Id, Account.Name FROM Contact LIMIT 100' } }, n),
    ],
    [
      'HubSpot search EQ + sort, limit 100',
      await timed(
        hs,
        hsToken,
        {
          method: 'POST',
          path: 'crm/v3/objects/contacts/search',
          body: { filterGroups: [{ filters: [{ propertyName: 'lastname', operator: 'HAS_PROPERTY' }] }], sorts: ['-lastname'], limit: 100 },
        },
        n,
      ),
    ],
  ];
  console.log(`${size} contacts:`);
  for (const [name, ms] of rows) console.log(`  ${name.padEnd(44)} ${ms.toFixed(2)} ms  (ratio to list page: ${(ms / plain).toFixed(1)})`);
  sf.close();
  hs.close();
}
console.log('expectation: ratios grow about linearly with the collection (queries scan it); the list page stays flat.');
