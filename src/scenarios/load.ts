import { CST, Parser, parseDocument, parse as parseYaml } from 'yaml';
import { MAX_JSON_DEPTH, tooDeepPhrase, valueTooDeep } from '../shared/json-depth.js';
import { checkDefinition, type ScenarioProblem } from './check.js';
import type { ScenarioDefinition } from './schema.js';

export type { ScenarioProblem } from './check.js';

/** How many problems an error's message lists; the rest are counted (all are in `problems`). */
const LISTED_PROBLEMS = 50;

/**
 * A scenario file (or definition) that cannot run: it names the file, and each problem its step
 * and field. Exit status 2 (a 400 over HTTP).
 */
export class ScenarioError extends Error {
  /** The field of the first problem (`steps[3].create.fields.amount`), if it is about one. */
  readonly field: string | undefined;
  /** Every problem, in the order of the file. */
  readonly problems: ScenarioProblem[];
  /** The file (or `(code)`, `definition`) the problems are in. */
  readonly source: string | undefined;
  constructor(message: string, field?: string, problems?: ScenarioProblem[], source?: string) {
    super(message);
    this.name = 'ScenarioError';
    this.field = field;
    this.problems = problems ?? [{ step: null, kind: null, field: field ?? '', message }];
    this.source = source;
  }

  /** All the problems of `source`: one line each, under a count when there are several. */
  static of(source: string, problems: ScenarioProblem[]): ScenarioError {
    const lines = problems.slice(0, LISTED_PROBLEMS).map((problem) => lineOf(source, problem));
    if (problems.length > LISTED_PROBLEMS) lines.push(`… and ${problems.length - LISTED_PROBLEMS} more`);
    const message = problems.length === 1 ? lines[0]! : `scenario ${source}: ${problems.length} problems:\n${lines.join('\n')}`;
    return new ScenarioError(message, problems[0]!.field, problems, source);
  }

  /** A problem as a line of the message: `scenario x.yaml: steps[3] (create): fields.amount must be a number, got string`. */
  line(problem: ScenarioProblem): string {
    return this.source === undefined ? problem.message : lineOf(this.source, problem);
  }
}

function lineOf(source: string, problem: ScenarioProblem): string {
  const where = problem.step === null ? '' : `steps[${problem.step}]${problem.kind === null ? '' : ` (${problem.kind})`}: `;
  return `scenario ${source}: ${where}${problem.message}`;
}

/** A scenario ready to run: checked, with its name. */
export interface Scenario {
  name: string;
  /** One line; empty when the file has none (only the built-ins must have one). */
  description: string;
  /** Where it came from: a file path, or `(code)`. */
  source: string;
  definition: ScenarioDefinition;
}

/**
 * Named scenarios: the built-ins shipped with the package, and scenario files by path. Read where
 * there is a file system: Node's platform provides them (src/node/scenario-files.ts) beside the
 * engine; the browser build has none.
 */
export interface ScenarioFiles {
  /** The built-ins: name, one-line description and file, by name. */
  listBuiltIns(): Array<{ name: string; description: string; file: string }>;
  /** A built-in by name, or a file by path; a ScenarioError naming the built-ins when neither. */
  findScenario(nameOrFile: string): Scenario;
}

/** Parses scenario text; `source` names it in errors. */
export function parseScenario(text: string, source: string): Scenario {
  let value: unknown;
  const extension = extensionOf(source);
  if (extension === '.json') {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw ScenarioError.of(source, [{ step: null, kind: null, field: '', message: `not valid JSON: ${(error as Error).message}` }]);
    }
  } else {
    // Measured on the syntax tree, which the parser builds without recursion: building the values recurses, and would overflow first.
    if (yamlTooDeep(text, MAX_JSON_DEPTH)) throw tooDeep(source);
    const document = parseDocument(text, { prettyErrors: true });
    const problem = document.errors[0];
    if (problem) throw ScenarioError.of(source, [{ step: null, kind: null, field: '', message: `not valid YAML: ${yamlProblem(problem, text)}` }]);
    value = parseYaml(text);
  }
  const fileName = fileNameOf(source);
  return checkScenario(value, source, fileName.slice(0, fileName.length - extension.length));
}

/**
 * A YAML error with its place and the line itself, quoted so that a tab shows (`\t`): the
 * parser's own message ends at the colon before a snippet that a one-line message would lose.
 *
 * @example yamlProblem(error, 'steps:\n\t- advance: 1s\n') // 'Tabs are not allowed as indentation at line 2, column 1: "\t- advance: 1s"'
 */
function yamlProblem(problem: { message: string; linePos?: [{ line: number; col: number }, ...unknown[]] | undefined }, text: string): string {
  const head = problem.message.split('\n')[0]!.replace(/:$/, '');
  const at = problem.linePos?.[0];
  if (!at) return head;
  const lines = text.split(/\r?\n/);
  const line = lines[at.line - 1];
  if (line !== undefined && line.trim() !== '') return `${head}: ${JSON.stringify(line)}`;
  const before = lines.slice(0, at.line - 1).findLast((earlier) => earlier.trim() !== '');
  return `${head}: ${at.line > lines.length - 1 ? 'the end of the file' : 'an empty line'}${before === undefined ? '' : `, after ${JSON.stringify(before)}`}`;
}

/** The last part of a path (after its last `/` or `\`), as node:path's `basename` gives it. */
function fileNameOf(path: string): string {
  const trimmed = path.replace(/[/\\]+$/, '');
  return trimmed.slice(Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\')) + 1);
}

/** A path's extension, dot included (`.yaml`), as node:path's `extname` gives it: '' for none, a name that only starts with a dot, or `..`. */
function extensionOf(path: string): string {
  const name = fileNameOf(path);
  const dot = name.lastIndexOf('.');
  return dot <= 0 || name === '..' ? '' : name.slice(dot);
}

/** Checks a definition (from a file or code) before anything runs; throws a ScenarioError with every problem. */
export function checkScenario(value: unknown, source: string, fallbackName = 'scenario'): Scenario {
  // First: every check after this one walks the value by recursion.
  if (valueTooDeep(value, MAX_JSON_DEPTH)) throw tooDeep(source);
  const result = checkDefinition(value);
  if (!result.ok) throw ScenarioError.of(source, result.problems);
  const { definition } = result;
  return { name: definition.name ?? fallbackName, description: definition.description ?? '', source, definition };
}

function tooDeep(source: string): ScenarioError {
  return ScenarioError.of(source, [{ step: null, kind: null, field: '', message: `the definition is ${tooDeepPhrase(MAX_JSON_DEPTH)}` }]);
}

/** Whether YAML text nests collections (block or flow) more than `limit` levels deep, read from its syntax tree with a stack of its own. */
function yamlTooDeep(text: string, limit: number): boolean {
  const pending: Array<[CST.Token | null | undefined, number]> = [];
  for (const token of new Parser().parse(text)) if (token.type === 'document') pending.push([token.value, 0]);
  while (pending.length > 0) {
    const [token, depth] = pending.pop()!;
    if (!CST.isCollection(token)) continue;
    if (depth + 1 > limit) return true;
    for (const item of token.items) pending.push([item.key, depth + 1], [item.value, depth + 1]);
  }
  return false;
}
