// Copies the browser files (link widget and inspector) to dist/ui (through the build's staging folder:
// scripts/build-out.mjs), where the dev server finds them.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOut } from './build-out.mjs';

const from = fileURLToPath(new URL('../src/ui/', import.meta.url));
const to = buildOut('ui');
mkdirSync(to, { recursive: true });
for (const file of readdirSync(from)) if (/\.(html|js|css)$/.test(file)) cpSync(`${from}/${file}`, `${to}/${file}`);
