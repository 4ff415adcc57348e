import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * How test/readme.test.ts runs a fenced block, from the marker line right before it:
 * `<!-- readme-test: KIND ARGUMENT -->` (an HTML comment: readers never see it).
 */
export const MARKER_KINDS = {
  /** The block is the scratch project's file ARGUMENT (run according to its kind: see the test). */
  file: 'path',
  /** The block is appended to the file ARGUMENT an earlier `file` block started. */
  append: 'path',
  /** `npm install` lines: the scratch project installs these packages. */
  install: 'none',
  /** Part of the curl session: its answers shown in `# {…}` comments are checked. Run in the one shell of the README's blocks (see `shell`). */
  session: 'none',
  /** Commands: with the `session` blocks, in document order, in one bash (a block's variables and `&` servers stay for the next), the dev server running. */
  shell: 'none',
  /** Each line starts a dev server: started on a free port, then stopped. */
  serve: 'none',
  /** A summary of `npx crm-sandbox ARGUMENT --help`: the same flags, and the same defaults. */
  help: 'text',
  /** The CI workflow: its `run:` commands, in the scratch project, against the README's receiver. */
  ci: 'none',
  /** Run by the test file ARGUMENT, which names the block's section. */
  'tested-by': 'path',
  /** Not executable; ARGUMENT says why. */
  skip: 'text',
} as const;

export type MarkerKind = keyof typeof MARKER_KINDS;

export interface Block {
  /** The Markdown file, relative to the repository. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string (`ts`, `sh`, ``), its first word. */
  lang: string;
  body: string;
  marker: { kind: MarkerKind; argument: string } | undefined;
  /** The text of the nearest heading above the block. */
  heading: string;
}

const MARKER = /^<!-- readme-test: ([a-z-]+)(?: (.*?))? -->$/;

/**
 * The Markdown files whose blocks are run, in this order: README.md, CONTRIBUTING.md and the pages of docs/
 * (not the decision records or the passthrough pages), sorted by path.
 */
export function documentedFiles(root: string): string[] {
  const docs = markdownFiles(root, 'docs').filter((file) => !file.startsWith('docs/decisions/') && !file.startsWith('docs/passthrough/'));
  return ['README.md', 'CONTRIBUTING.md', ...docs.sort()];
}

/** Every Markdown file under `dir` (relative to `root`), for the link check. */
export function markdownFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return markdownFiles(root, path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The fenced blocks of a Markdown text, each with the marker line before it (if any). */
export function fencedBlocks(file: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '');
    const open = /^(`{3,})(\S*)/.exec(line);
    if (!open) continue;
    const end = lines.findIndex((candidate, j) => j > i && candidate.startsWith(open[1]!) && candidate.trim() === open[1]);
    if (end === -1) throw new Error(`${file}:${i + 1}: a fence that is never closed`);
    const marked = MARKER.exec(lines[i - 1] ?? '');
    const kind = marked?.[1];
    if (kind !== undefined && !(kind in MARKER_KINDS)) throw new Error(`${file}:${i}: unknown marker kind "${kind}"`);
    blocks.push({
      file,
      line: i + 1,
      lang: open[2]!,
      body: `${lines.slice(i + 1, end).join('\n')}\n`,
      marker: kind === undefined ? undefined : { kind: kind as MarkerKind, argument: marked![2] ?? '' },
      heading,
    });
    i = end;
  }
  return blocks;
}

/** What a marker lacks or has too much of, or undefined when it is well-formed. */
export function markerProblem(block: Block): string | undefined {
  if (!block.marker) return 'no <!-- readme-test: … --> marker line before it';
  const { kind, argument } = block.marker;
  const wants = MARKER_KINDS[kind];
  if (wants === 'none' && argument !== '') return `"${kind}" takes no argument, got "${argument}"`;
  if (wants !== 'none' && argument === '') return `"${kind}" needs ${wants === 'path' ? 'a path' : 'a text'}`;
  if (wants === 'path' && (argument.startsWith('/') || argument.split('/').includes('..')))
    return `"${kind}" needs a relative path inside the project, got "${argument}"`;
  return undefined;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a Markdown text has (headings outside fences; repeated ones get -1, -2…). */
export function anchors(text: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^`{3,}/.test(line)) fenced = !fenced;
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (fenced || !heading) continue;
    const base = slug(heading[1]!);
    let anchor = base;
    for (let n = 1; found.has(anchor); n++) anchor = `${base}-${n}`;
    found.add(anchor);
  }
  return found;
}

/** Relative links (and images) of a Markdown text outside code, as written: `docs/x.md#part`, `#part`. */
export function relativeLinks(text: string): string[] {
  const prose = text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z][a-z+.-]*:/i.test(target));
}

/** Why a link of `file` leads nowhere, or undefined when it resolves (a file or folder, and its anchor). */
export function brokenLink(root: string, file: string, target: string): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const resolved = path === '' ? join(root, file) : resolve(root, dirname(file), decodeURIComponent(path));
  if (!resolved.startsWith(root)) return `${target}: outside the repository`;
  if (!existsSync(resolved)) return `${target}: no ${relative(root, resolved)}`;
  if (anchor === undefined) return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return `${target}: an anchor into something that is not a Markdown file`;
  if (!anchors(readFileSync(resolved, 'utf8')).has(anchor)) return `${target}: ${relative(root, resolved)} has no heading #${anchor}`;
  return undefined;
}
