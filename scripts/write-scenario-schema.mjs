// Writes scenarios/scenario.schema.json from the zod schema that validates scenario files (run by `npm run build`):
// only when it changed, and by a rename, so a running server never reads it half-written.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { scenarioJsonSchema } from '../dist/scenarios/schema.js';

const file = new URL('../scenarios/scenario.schema.json', import.meta.url);
const text = `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
let current;
try {
  current = readFileSync(file, 'utf8');
} catch {
  current = undefined;
}
if (current !== text) {
  const next = new URL(`../scenarios/.scenario.schema.json.${process.pid}`, import.meta.url);
  writeFileSync(next, text);
  renameSync(next, file);
}
