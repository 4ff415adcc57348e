import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CST, Parser, parse as parseYaml, parseDocument } from 'yaml';
import { MAX_JSON_DEPTH, tooDeepPhrase, valueTooDeep } from '../shared/json-depth.js';
import { checkDefinition, type ScenarioProblem } from './check.js';
import type { ScenarioDefinition } from './schema.js';

export type { ScenarioProblem } from './check.js';

/** The built-in scenarios shipped with the package. */
export const BUILT_IN_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));
const EXTENSIONS = ['.yaml', '.yml', '.json'];
/** The JSON Schema of the format, beside the built-ins: not a scenario. */
const SCHEMA_FILE = 'scenario.schema.json';

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

let builtIns: Scenario[] | undefined;

/** The built-ins, checked, by name. They ship with the package: read and parsed once. */
function builtInScenarios(): Scenario[] {
  builtIns ??= existsSync(BUILT_IN_DIR)
    ? readdirSync(BUILT_IN_DIR)
        .filter((file) => EXTENSIONS.includes(extname(file)) && file !== SCHEMA_FILE)
        .sort()
        .map((file) => loadScenarioFile(join(BUILT_IN_DIR, file)))
    : [];
  return builtIns;
}

/** The built-ins: name and one-line description, by name. */
export function listBuiltIns(): Array<{ name: string; description: string; file: string }> {
  return builtInScenarios().map(({ name, description, source }) => ({ name, description, file: source }));
}

/** A built-in by name, or a file by path. */
export function findScenario(nameOrFile: string): Scenario {
  const builtIn = builtInScenarios().find((scenario) => scenario.name === nameOrFile);
  if (builtIn) return builtIn;
  if (existsSync(nameOrFile)) return loadScenarioFile(nameOrFile);
  const names = listBuiltIns().map((item) => item.name);
  throw new ScenarioError(`no scenario named "${nameOrFile}" and no such file; built-ins: ${names.join(', ')}`);
}

/** Reads and checks a scenario file (YAML or JSON). */
export function loadScenarioFile(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw ScenarioError.of(path, [{ step: null, kind: null, field: '', message: `cannot read it: ${(error as Error).message}` }]);
  }
  return parseScenario(text, path);
}

/** Parses scenario text; `source` names it in errors. */
export function parseScenario(text: string, source: string): Scenario {
  let value: unknown;
  if (extname(source) === '.json') {
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
    if (problem) throw ScenarioError.of(source, [{ step: null, kind: null, field: '', message: `not valid YAML: ${problem.message.split('\n')[0]}` }]);
    value = parseYaml(text);
  }
  const fallbackName = basename(source, extname(source));
  return checkScenario(value, source, fallbackName);
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
