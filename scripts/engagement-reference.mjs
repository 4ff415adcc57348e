// The tables of docs/reference/unified-engagement.md, made from the objects' descriptions, so the
// page says what the code does. `node scripts/engagement-reference.mjs` (after `npm run build`)
// rewrites the part of the page between its markers; test/engagement-reference.test.ts checks it is current.
import { readFileSync, writeFileSync } from 'node:fs';

const PAGE = new URL('../docs/reference/unified-engagement.md', import.meta.url);
const START = '<!-- generated: scripts/engagement-reference.mjs -->';
const END = '<!-- end of generated part -->';
const PLATFORMS = ['outreach', 'salesloft', 'apollo'];

const paths = (object) =>
  [
    object.operations.includes('list') ? `GET /engagement/${object.many}` : '',
    object.operations.includes('get') ? `GET /engagement/${object.one}` : '',
    object.operations.includes('create') ? `POST /engagement/${object.one}` : '',
    object.operations.includes('update') ? `PATCH /engagement/${object.one}` : '',
    object.operations.includes('search') ? `POST /engagement/${object.many}/search` : '',
    object.operations.includes('complete') ? `POST /engagement/${object.one}/complete` : '',
    object.operations.includes('start') ? `POST /engagement/${object.one}/start` : '',
  ].filter(Boolean);

const kindOf = (item) => `${item.kind === 'stringList' ? 'string list' : item.kind}${item.options ? `: ${item.options.join(', ')}` : ''}`;

/** The generated part of the page, from `UNIFIED_ENGAGEMENT_OBJECTS` and `ENGAGEMENT_UNMAPPED` (src/unified/engagement-objects.ts). */
export function engagementTables({ UNIFIED_ENGAGEMENT_OBJECTS, ENGAGEMENT_UNMAPPED }) {
  const lines = [];
  lines.push('### What each platform keeps them in', '');
  lines.push(`| object | ${PLATFORMS.join(' | ')} |`, `| --- |${PLATFORMS.map(() => ' --- |').join('')}`);
  for (const object of UNIFIED_ENGAGEMENT_OBJECTS) {
    const cells = PLATFORMS.map((platform) => {
      const unmapped = ENGAGEMENT_UNMAPPED[platform]?.[object.name] ?? [];
      const native = object.native[platform];
      // A native path in code; a sentence (where the platform has no route of its own) as text.
      return `${/\s/.test(native) ? native : `\`${native}\``}${unmapped.length ? `; no ${unmapped.map((key) => `\`${key}\``).join(', ')}` : ''}`;
    });
    lines.push(`| ${object.name} | ${cells.join(' | ')} |`);
  }
  for (const object of UNIFIED_ENGAGEMENT_OBJECTS) {
    lines.push('', `### ${object.name} (the document's \`${object.schema}\`)`, '');
    const note = (path) => (path.endsWith('/search') && object.beyondDocument?.includes('search') ? ' (not in the document)' : '');
    lines.push(
      `${paths(object)
        .map((path) => `\`${path}\`${note(path)}`)
        .join(', ')}. Answers \`{ ${object.listKey}, nextPageCursor }\`${object.one ? `, \`{ ${object.key} }\`` : ''}.`,
      '',
    );
    lines.push(
      `Fields: ${object.fields.map((field) => `\`${field.key}\` (${kindOf(field)})`).join(', ')}${object.times ? ', `createdTime`, `modifiedTime`' : ''}.` +
        (object.associations.length ? ` Associations: ${object.associations.map((key) => `\`${key}\``).join(', ')}.` : ''),
    );
    const writes = [
      ['create', object.create],
      ['update', object.update],
      [object.operations.includes('start') ? 'start `fields`' : 'complete `fields`', object.action],
    ].filter(([, items]) => items);
    if (writes.length) {
      lines.push('', '| body | takes |', '| --- | --- |');
      for (const [name, items] of writes) {
        const taken = items.map((item) => `\`${item.key}\`${item.required ? ' (required)' : ''}${item.beyondDocument ? ' (beyond the document)' : ''}`);
        lines.push(`| ${name} | ${[...taken, ...(name === 'create' || name === 'update' ? ['`additional`'] : [])].join(', ')} |`);
      }
    }
    const filters = [...(object.filters ?? []).map((filter) => `\`${filter.key}\` (${filter.kind === 'stringList' ? 'string list' : filter.kind})`)];
    for (const list of object.listFilters ?? []) filters.push(`\`${list.key}\` (any item's ${list.fields.map((field) => `\`${field.key}\``).join(', ')})`);
    if (filters.length) lines.push('', `Search filters: ${filters.join(', ')}.`);
  }
  return lines.join('\n');
}

/** The page with its generated part replaced. */
export function withEngagementTables(page, tables) {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start === -1 || end === -1) throw new Error(`docs/reference/unified-engagement.md: the markers ${START} … ${END} are missing`);
  return `${page.slice(0, start + START.length)}\n\n${tables}\n\n${page.slice(end)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const modules = await import('../dist/unified/engagement-objects.js');
  writeFileSync(PAGE, withEngagementTables(readFileSync(PAGE, 'utf8'), engagementTables(modules)));
}
