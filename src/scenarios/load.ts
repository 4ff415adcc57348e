import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, parseDocument } from 'yaml';
import type { z } from 'zod';
import { crmWriteSchema, type CrmObjectType } from '../model/crm.js';
import { describeIssues } from '../shared/validation.js';
import { isWholeRef, namesIn } from './refs.js';
import { STEP_KINDS, STEP_SCHEMAS, scenarioHeadSchema, type ScenarioDefinition, type ScenarioStep, type StepKind } from './schema.js';

/** The built-in scenarios shipped with the package. */
export const BUILT_IN_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));
const EXTENSIONS = ['.yaml', '.yml', '.json'];
/** The JSON Schema of the format, beside the built-ins: not a scenario. */
const SCHEMA_FILE = 'scenario.schema.json';

/** A scenario file (or definition) that cannot run: it names the file, the step and the field. Exit status 2. */
export class ScenarioError extends Error {
  readonly field: string | undefined;
  constructor(message: string, field?: string) {
    super(message);
    this.name = 'ScenarioError';
    this.field = field;
  }
}

/** A scenario ready to run: checked, with its name. */
export interface Scenario {
  name: string;
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
    throw new ScenarioError(`scenario ${path}: cannot read it: ${(error as Error).message}`);
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
      throw new ScenarioError(`scenario ${source}: not valid JSON: ${(error as Error).message}`);
    }
  } else {
    const document = parseDocument(text, { prettyErrors: true });
    const problem = document.errors[0];
    if (problem) throw new ScenarioError(`scenario ${source}: not valid YAML: ${problem.message.split('\n')[0]}`);
    value = parseYaml(text);
  }
  const fallbackName = basename(source, extname(source));
  return checkScenario(value, source, fallbackName);
}

/** Checks a definition (from a file or code) before anything runs. */
export function checkScenario(value: unknown, source: string, fallbackName = 'scenario'): Scenario {
  const fail = (where: string, field: string, message: string): never => {
    throw new ScenarioError(`scenario ${source}: ${where}${message}`, field);
  };
  const head = scenarioHeadSchema.safeParse(value, { reportInput: true });
  if (!head.success) {
    const issue = describeIssues(head.error)[0]!;
    fail('', issue.field, issue.field ? `${issue.field} ${issue.message}` : `the file ${issue.message}`);
  }
  const { steps, ...top } = head.data!;
  const defined = new Set(['main']);
  const checked: ScenarioStep[] = steps.map((raw, index) => {
    const where = `steps[${index}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail(`${where}: `, where, `a step is an object with one key, its kind: ${STEP_KINDS.join(', ')}`);
    const keys = Object.keys(raw as object);
    const kind = keys[0] as StepKind;
    if (keys.length !== 1 || !STEP_KINDS.includes(kind)) {
      const unknown = keys.find((key) => !STEP_KINDS.includes(key as StepKind));
      fail(
        `${where}: `,
        where,
        keys.length === 1 ? `"${unknown}" is not a step kind; use one of ${STEP_KINDS.join(', ')}` : `a step has exactly one kind, got ${keys.length} keys (${keys.join(', ')})`,
      );
    }
    const at = `${where} (${kind}): `;
    const stepValue = (raw as Record<string, unknown>)[kind];
    const parsed = (STEP_SCHEMAS[kind] as z.ZodType).safeParse(stepValue, { reportInput: true });
    if (!parsed.success) {
      const issue = describeIssues(parsed.error)[0]!;
      fail(at, `${where}.${kind}${issue.field ? `.${issue.field}` : ''}`, issue.field ? `${issue.field} ${issue.message}` : `its value ${issue.message}`);
    }
    const step = parsed.data as Record<string, unknown>;
    for (const name of namesIn(step)) {
      if (name === 'i' && kind === 'create' && step.repeat !== undefined) continue;
      if (!defined.has(name)) fail(at, `${where}.${kind}`, `$${name} is not defined by an earlier step (name things with as)`);
    }
    for (const key of ['record', 'connection'] as const) {
      const named = typeof step === 'object' && step !== null ? step[key] : undefined;
      if (typeof named === 'string' && !defined.has(named)) fail(at, `${where}.${kind}.${key}`, `${key} "${named}" is not defined by an earlier step`);
    }
    checkTarget(kind, step, (field, message) => fail(at, `${where}.${kind}.${field}`, `${field} ${message}`));
    if (typeof step === 'object' && step !== null && typeof step.as === 'string') defined.add(step.as);
    return { [kind]: parsed.data } as ScenarioStep;
  });
  const name = top.name ?? fallbackName;
  return { name, description: top.description, source, definition: { ...top, steps: checked } };
}

/** Record steps name their record one way, and their fields are checked as the control API would. */
function checkTarget(kind: StepKind, step: Record<string, unknown>, fail: (field: string, message: string) => never): void {
  if (kind === 'update' || kind === 'delete') {
    const byName = step.record !== undefined;
    const byId = step.type !== undefined || step.id !== undefined;
    if (byName === byId) fail(byName ? 'record' : 'type', byName ? 'and type/id cannot both be given' : 'is required (or name the record with record)');
    if (!byName && (step.type === undefined || step.id === undefined)) fail(step.type === undefined ? 'type' : 'id', 'is required with the other of type and id');
  }
  if ((kind === 'create' || kind === 'update') && step.fields && typeof step.type === 'string') {
    const literal = withoutRefs(step.fields as Record<string, unknown>);
    const result = crmWriteSchema(step.type as CrmObjectType).safeParse(literal, { reportInput: true });
    if (!result.success) {
      const issue = describeIssues(result.error)[0]!;
      fail(`fields.${issue.field}`, issue.message);
    }
  }
}

/** Fields with whole-value references left out: their type is known only at run time. */
function withoutRefs(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (isWholeRef(value) || (typeof value === 'string' && value.includes('${'))) continue;
    if (Array.isArray(value)) out[key] = value.some((item) => typeof item === 'string' && (isWholeRef(item) || item.includes('${'))) ? undefined : value;
    else if (value && typeof value === 'object') out[key] = withoutRefs(value as Record<string, unknown>);
    else out[key] = value;
    if (out[key] === undefined) delete out[key];
  }
  return out;
}
