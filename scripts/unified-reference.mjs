// The tables of docs/reference/unified-objects.md, made from the objects' descriptions, so the page
// says what the code does. `node scripts/unified-reference.mjs` (after `npm run build`) rewrites
// the part of the page between its markers; test/unified-reference.test.ts checks it is current.
import { readFileSync, writeFileSync } from 'node:fs';

const PAGE = new URL('../docs/reference/unified-objects.md', import.meta.url);
const START = '<!-- generated: scripts/unified-reference.mjs -->';
const END = '<!-- end of generated part -->';
const CRMS = ['salesforce', 'hubspot', 'pipedrive', 'zoho'];

/**
 * The generated part of the page. `modules`: `UNIFIED_CRM_OBJECTS` (src/unified/crm-objects.ts),
 * `UNMAPPED` (src/unified/view.ts) and `nativeObjectOf` (src/downstream/native-objects.ts), from
 * the sources (the test) or the build (this script).
 */
export function referenceTables({ UNIFIED_CRM_OBJECTS, UNMAPPED, nativeObjectOf }) {
  const lines = [];
  lines.push('### What each CRM keeps them in', '');
  lines.push(`| object | ${CRMS.join(' | ')} |`, `| --- |${CRMS.map(() => ' --- |').join('')}`);
  for (const object of UNIFIED_CRM_OBJECTS) {
    const cells = CRMS.map((crm) => {
      const native = nativeObjectOf(crm, object.type)?.object.name;
      const unmapped = UNMAPPED[crm]?.[object.type] ?? [];
      return `${native ? `\`${native}\`` : 'none (kept by the sandbox only)'}${unmapped.length ? `; no ${unmapped.map((key) => `\`${key}\``).join(', ')} (refused by name)` : ''}`;
    });
    lines.push(`| ${object.type} | ${cells.join(' | ')} |`);
  }
  for (const object of UNIFIED_CRM_OBJECTS) {
    lines.push('', `### ${object.type}: \`/crm/${object.many}\`, \`/crm/${object.one}\``, '');
    const answer = `Answers \`{ ${object.listKey}, nextPageCursor }\` (list, search), \`{ ${object.key} }\` (get), \`{ ${object.listKey}, invalidIds }\` (batch)`;
    lines.push(
      `${answer}${object.readOnly ? '; read only (no create or update)' : `; writes take \`{ accessToken, ${object.key} }\` (update: and \`id\`)`}.${object.lookups ? ` \`GET /crm/${object.one}\` also finds one by ${object.lookups.map((key) => `\`${key}\``).join(', ')} (id wins when both are given).` : ''}`,
      '',
    );
    lines.push('| field | type | create | update | filter |', '| --- | --- | --- | --- | --- |');
    const filterOf = (key) => object.filters.find((filter) => filter.key === key)?.kind ?? '';
    const mark = (allowed, required) => (required ? 'required' : allowed ? 'yes' : '');
    for (const field of object.fields) {
      const type = `${field.kind === 'decimalString' ? 'decimal string' : field.kind === 'stringList' ? 'string list' : field.kind}${field.options && field.detail === 'singleselect' ? `: ${field.options.join(', ')}` : ''}`;
      lines.push(
        `| \`${field.key}\` | ${type} | ${mark(field.create, field.requiredOnCreate)} | ${mark(field.update, field.requiredOnUpdate)} | ${filterOf(field.key)} |`,
      );
    }
    for (const link of object.links) {
      const shape = link.form === 'participant' ? '{ id, role }' : link.form === 'participants' ? '[{ id, role }]' : 'id';
      lines.push(
        `| \`${link.input}\` | ${shape} → \`associations.${link.association}\` | ${mark(link.create, link.requiredOnCreate)} | ${mark(link.update, false)} | |`,
      );
    }
    const others = object.filters.filter((filter) => !object.fields.some((field) => field.key === filter.key));
    lines.push('', `Other filters: ${others.map((filter) => `\`${filter.key}\` (${filter.kind}${filter.path ? `, \`${filter.path}\`` : ''})`).join(', ')}.`);
  }
  return lines.join('\n');
}

/** The page with its generated part replaced. */
export function withTables(page, tables) {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start === -1 || end === -1) throw new Error(`docs/reference/unified-objects.md: the markers ${START} … ${END} are missing`);
  return `${page.slice(0, start + START.length)}\n\n${tables}\n\n${page.slice(end)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const modules = {
    ...(await import('../dist/unified/crm-objects.js')),
    ...(await import('../dist/unified/view.js')),
    ...(await import('../dist/downstream/native-objects.js')),
  };
  writeFileSync(PAGE, withTables(readFileSync(PAGE, 'utf8'), referenceTables(modules)));
}
