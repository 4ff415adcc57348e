import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
// @ts-expect-error: a plain script, without types
import { referenceTables, withTables } from '../scripts/unified-reference.mjs';
import { nativeObjectOf } from '../src/downstream/native-objects.js';
import { UNIFIED_CRM_OBJECTS } from '../src/unified/crm-objects.js';
import { UNMAPPED } from '../src/unified/view.js';

/** The reference page's tables are made from the objects' descriptions: they say what the code does. */
it('docs/reference/unified-objects.md holds the tables of the descriptions (node scripts/unified-reference.mjs after a build rewrites them)', () => {
  const page = readFileSync(new URL('../docs/reference/unified-objects.md', import.meta.url), 'utf8');
  expect(page).toBe(withTables(page, referenceTables({ UNIFIED_CRM_OBJECTS, UNMAPPED, nativeObjectOf })));
});
