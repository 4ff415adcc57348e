// Copies the browser files (link widget and inspector) to dist/ui, where the dev server finds them.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';

const from = new URL('../src/ui/', import.meta.url);
const to = new URL('../dist/ui/', import.meta.url);
mkdirSync(to, { recursive: true });
for (const file of readdirSync(from)) if (/\.(html|js|css)$/.test(file)) cpSync(new URL(file, from), new URL(file, to));
