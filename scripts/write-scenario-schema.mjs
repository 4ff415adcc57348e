// Writes scenarios/scenario.schema.json from the zod schema that validates scenario files (run by `npm run build`).
import { writeFileSync } from 'node:fs';
import { scenarioJsonSchema } from '../dist/scenarios/schema.js';

const file = new URL('../scenarios/scenario.schema.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`);
