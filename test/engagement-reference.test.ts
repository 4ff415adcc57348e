import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
// @ts-expect-error: a plain script, without types
import { engagementTables, withEngagementTables } from '../scripts/engagement-reference.mjs';
import { ENGAGEMENT_UNMAPPED, UNIFIED_ENGAGEMENT_OBJECTS } from '../src/unified/engagement-objects.js';

/** The reference page's tables are made from the engagement objects' descriptions: they say what the code does. */
it('docs/reference/unified-engagement.md holds the tables of the descriptions (node scripts/engagement-reference.mjs after a build rewrites them)', () => {
  const page = readFileSync(new URL('../docs/reference/unified-engagement.md', import.meta.url), 'utf8');
  expect(page).toBe(withEngagementTables(page, engagementTables({ UNIFIED_ENGAGEMENT_OBJECTS, ENGAGEMENT_UNMAPPED })));
});
