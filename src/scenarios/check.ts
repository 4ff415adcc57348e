import * as z from 'zod';
import { CRM_OBJECT_TYPES, type CrmObjectType, crmRecordSchema, crmWriteSchema } from '../model/crm.js';
import { INTEGRATION_IDS } from '../model/integrations.js';
import { didYouMean } from '../shared/closest.js';
import { parseDuration } from '../shared/duration.js';
import { SandboxConfigError } from '../shared/errors.js';
import { type ExplainedIssue, explainIssues, fieldPath, objectKeys, schemaAt, schemaType } from '../shared/validation.js';
import { readOnlyIssues } from '../store/connection-data.js';
import { parseDelayRange } from '../webhooks/chaos.js';
import { isTemplate, isWholeRef, type RefAt, refsIn, wholeRefOfTemplate } from './refs.js';
import { type ScenarioDefinition, type ScenarioStep, STEP_KINDS, STEP_SCHEMAS, type StepKind, scenarioHeadSchema } from './schema.js';
import type { PassthroughAnswer, RunConnection } from './target.js';

/**
 * The check of a scenario before it runs: every problem `run` would meet before its first side
 * effect or at a step, as far as the file alone tells, all at once. A problem in one step does
 * not hide those of later steps, and a name a faulty step gives still counts as defined.
 */

/** One thing wrong with a scenario: the step (index and kind) and the field it is about. */
export interface ScenarioProblem {
  /** Index of the step, or null for the top of the file. */
  step: number | null;
  /** The step's kind, or null when it has none (or the problem is not in a step). */
  kind: string | null;
  /** Path of the field from the top of the definition, e.g. `steps[3].create.fields.amount`. */
  field: string;
  /** What is wrong and what is allowed, starting with the field inside the step: `fields.amount must be a number, got string`. */
  message: string;
}

/** The definition when it is fine, else every problem. */
export type CheckResult = { ok: true; definition: ScenarioDefinition } | { ok: false; problems: ScenarioProblem[] };

/** What a name given with `as` (or `main`) stands for, as the runner binds it. */
type Binding = { what: 'connection' } | { what: 'record'; type: CrmObjectType | undefined } | { what: 'answer' } | { what: 'unknown' };

/** The shape of what a reference reads: a connection as the runner keeps it, a passthrough answer, a repeat's index. */
const CONNECTION_SHAPE = z.object({
  connectionId: z.string(),
  accessToken: z.string(),
  integrationId: z.enum(INTEGRATION_IDS),
  nativeOrgId: z.string(),
  webhookUrl: z.string().nullable(),
}) satisfies z.ZodType<RunConnection>;
const ANSWER_SHAPE = z.object({
  statusCode: z.number(),
  headers: z.record(z.string(), z.string()),
  url: z.string(),
  body: z.unknown(),
}) satisfies z.ZodType<PassthroughAnswer>;
const INDEX_SHAPE = z.number();
const SCALARS = new Set(['string', 'number', 'boolean', 'enum', 'literal', 'null', 'bigint']);
const recordShapes = new Map<CrmObjectType, z.ZodType>();
const recordShape = (type: CrmObjectType) => recordShapes.get(type) ?? recordShapes.set(type, crmRecordSchema(type)).get(type)!;

/** Names given so far, as the runner will have bound them when a step runs. */
class Names {
  private readonly latest = new Map<string, Binding>([['main', { what: 'connection' }]]);
  /** A name once linked stays a connection (the runner keeps it), whatever it names later. */
  private readonly connections = new Set(['main']);
  /** Names given by steps whose kind is unknown: they may be connections too. */
  private readonly unknown = new Set<string>();

  define(name: unknown, binding: Binding): void {
    if (typeof name !== 'string') return;
    this.latest.set(name, binding);
    if (binding.what === 'connection') this.connections.add(name);
    if (binding.what === 'unknown') this.unknown.add(name);
  }

  get(name: string): Binding | undefined {
    return this.latest.get(name);
  }

  isConnection(name: string): boolean {
    return this.connections.has(name) || this.unknown.has(name);
  }

  /** The names that are `what` now, for a message: `main, crm2`. */
  list(what: Binding['what'] | 'any'): string {
    const names = [...this.latest]
      .filter(([name, binding]) => (what === 'connection' ? this.connections.has(name) : what === 'any' || binding.what === what))
      .map(([name]) => name);
    return names.length <= 20 ? names.join(', ') : `${names.slice(0, 20).join(', ')}, …`;
  }
}

/** Checks a definition (from a file, code or a request). */
export function checkDefinition(value: unknown): CheckResult {
  const problems: ScenarioProblem[] = [];
  const head = scenarioHeadSchema.safeParse(value, { reportInput: true });
  if (!head.success) {
    for (const issue of explainIssues(scenarioHeadSchema, head.error)) {
      problems.push({
        step: null,
        kind: null,
        field: issue.field,
        message: sentence(issue, 'the scenario', (parent) => (parent.length === 0 ? 'the scenario' : fieldPath(parent))),
      });
    }
  }
  const steps = value && typeof value === 'object' && Array.isArray((value as { steps?: unknown }).steps) ? (value as { steps: unknown[] }).steps : [];
  const names = new Names();
  const checked = steps.map((raw, index) => checkStep(raw, index, names, problems));
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, definition: { ...head.data!, steps: checked as ScenarioStep[] } };
}

/** Checks one step, adds its problems, defines the name it gives; returns it as parsed. */
function checkStep(raw: unknown, index: number, names: Names, problems: ScenarioProblem[]): unknown {
  const where = `steps[${index}]`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push({ step: index, kind: null, field: where, message: `a step is an object with one key, its kind: ${STEP_KINDS.join(', ')}` });
    return raw;
  }
  const keys = Object.keys(raw);
  const kind = keys[0] as StepKind;
  if (keys.length !== 1 || !STEP_KINDS.includes(kind)) {
    const unknown = keys.find((key) => !STEP_KINDS.includes(key as StepKind));
    problems.push({
      step: index,
      kind: null,
      field: where,
      message:
        keys.length === 1
          ? `"${unknown}" is not a step kind${didYouMean(unknown, STEP_KINDS) ? `${didYouMean(unknown, STEP_KINDS)} Use` : '; use'} one of ${STEP_KINDS.join(', ')}`
          : `a step has exactly one kind, got ${keys.length} keys (${keys.join(', ')})`,
    });
    // Its fields are not checked, but a name it gives is defined: later steps are not blamed for it.
    for (const item of Object.values(raw)) if (isObject(item)) names.define(item.as, { what: 'unknown' });
    return raw;
  }
  const value = (raw as Record<string, unknown>)[kind];
  const add = (field: PropertyKey[] | string, message: string) => {
    const path = typeof field === 'string' ? field : fieldPath(field);
    problems.push({ step: index, kind, field: `${where}.${kind}${path ? `.${path}` : ''}`, message });
  };
  const parsed = (STEP_SCHEMAS[kind] as z.ZodType).safeParse(value, { reportInput: true });
  if (!parsed.success) {
    for (const issue of explainIssues(STEP_SCHEMAS[kind] as z.ZodType, parsed.error)) {
      add(
        issue.field,
        sentence(issue, 'its value', (parent) => (parent.length === 0 ? `the ${kind} step` : fieldPath(parent))),
      );
    }
  }
  const step = isObject(value) ? value : {};
  checkNames(kind, step, names, add);
  checkRefs(kind, step, names, add);
  const type = recordType(kind, step, names);
  if ((kind === 'create' || kind === 'update') && type && isObject(step.fields)) checkFields(type, step.fields, add);
  if (kind === 'chaos') checkChaos(step, add);
  if (kind === 'expect') checkExpectedRecords(step, add);
  if (kind === 'link') names.define(step.as, { what: 'connection' });
  if (kind === 'create') names.define(step.as, { what: 'record', type });
  if (kind === 'update') names.define(step.as ?? step.record, { what: 'record', type });
  if (kind === 'passthrough') names.define(step.as, { what: 'answer' });
  return { [kind]: parsed.success ? parsed.data : value };
}

type Add = (field: PropertyKey[] | string, message: string) => void;

/** `record` and `connection` name what the runner will find under them; update/delete name their record one way. */
function checkNames(kind: StepKind, step: Record<string, unknown>, names: Names, add: Add): void {
  if (typeof step.record === 'string') {
    const bound = names.get(step.record);
    if (!bound) {
      const records = names.list('record');
      add('record', `record "${step.record}" is not defined by an earlier step (name records with as)${records ? `; records: ${records}` : ''}`);
    } else if (bound.what === 'connection' || bound.what === 'answer') {
      add('record', `record "${step.record}" names ${bound.what === 'connection' ? 'a connection (a link step)' : 'a passthrough answer'}, not a record`);
    }
  }
  if (typeof step.connection === 'string' && !names.isConnection(step.connection)) {
    const bound = names.get(step.connection);
    const what =
      bound?.what === 'record'
        ? 'names a record, not a connection'
        : bound?.what === 'answer'
          ? 'names a passthrough answer, not a connection'
          : "is not defined by an earlier step (name connections with a link step's as)";
    add('connection', `connection "${step.connection}" ${what}; connections: ${names.list('connection')}`);
  }
  if (kind === 'update' || kind === 'delete') {
    const byName = step.record !== undefined;
    const byId = step.type !== undefined || step.id !== undefined;
    if (byName && byId) add('record', 'record and type/id cannot both be given');
    else if (!byName && !byId) add('type', 'type is required (or name the record with record)');
    else if (!byName && (step.type === undefined || step.id === undefined))
      add(step.type === undefined ? 'type' : 'id', `${step.type === undefined ? 'type' : 'id'} is required with the other of type and id`);
  }
}

/** Every `$name` names something an earlier step defined, and reads a field it has. */
function checkRefs(kind: StepKind, step: Record<string, unknown>, names: Names, add: Add): void {
  const reported = new Set<string>();
  for (const ref of refsIn(step)) {
    const at = fieldPath(ref.path);
    const say = (message: string) => add(ref.path, at ? `${at}: ${message}` : message);
    const shown = `$${[ref.name, ...ref.keys].join('.')}`;
    // Once per name (and path) and step: the same name written five times is one mistake.
    const once = (key: string, message: string) => {
      if (!reported.has(key)) say(message);
      reported.add(key);
    };
    if (ref.name === 'i' && kind === 'create') {
      if (step.repeat === undefined) once(ref.name, '${i} is the index inside a repeat, and this create has no repeat');
      else checkRefPath(INDEX_SHAPE, '$i', ref, say);
      continue;
    }
    const bound = names.get(ref.name);
    if (!bound) {
      once(ref.name, `$${ref.name} is not defined by an earlier step (name things with as); defined: ${names.list('any')}`);
      continue;
    }
    const shape =
      bound.what === 'connection'
        ? CONNECTION_SHAPE
        : bound.what === 'answer'
          ? ANSWER_SHAPE
          : bound.what === 'record' && bound.type
            ? recordShape(bound.type)
            : undefined;
    if (shape && !reported.has(shown)) {
      reported.add(shown);
      checkRefPath(shape, `$${ref.name}`, ref, say);
    }
  }
}

/** The keys after a name exist in what it stands for (as far as its shape is known). */
function checkRefPath(shape: z.ZodType, name: string, ref: RefAt, say: (message: string) => void): void {
  let at: z.ZodType | undefined = shape;
  let walked = name;
  for (const key of ref.keys) {
    const type = schemaType(at);
    if (type === 'object') {
      const keys = objectKeys(at)!;
      if (!keys.includes(key)) {
        const meant = didYouMean(key, keys);
        say(`${walked} has no field "${key}"${meant ? `${meant} Allowed` : '; allowed'}: ${keys.join(', ')}`);
        return;
      }
    } else if (SCALARS.has(type)) {
      say(`${walked} is a ${type === 'enum' || type === 'literal' ? 'string' : type}: it has no field "${key}"`);
      return;
    } else {
      return; // a list, a map, the body of an answer: known only at run time
    }
    at = schemaAt(at, [key]);
    if (!at) return;
    walked += `.${key}`;
  }
}

/** The object type of a create or update step's record, when the file tells it. */
function recordType(kind: StepKind, step: Record<string, unknown>, names: Names): CrmObjectType | undefined {
  const known = (type: unknown) => ((CRM_OBJECT_TYPES as readonly unknown[]).includes(type) ? (type as CrmObjectType) : undefined);
  if (kind === 'create') return known(step.type);
  if (kind !== 'update') return undefined;
  if (typeof step.record !== 'string') return known(step.type);
  const bound = names.get(step.record);
  return bound?.what === 'record' ? bound.type : undefined;
}

/**
 * A record's fields as the control API will check them, with references in place: a whole-value
 * reference may turn out to be of any type, so what is said about its value waits for the run;
 * text with references in it is a string, so a field that takes no string is told now.
 */
function checkFields(type: CrmObjectType, fields: Record<string, unknown>, add: Add): void {
  const refs = new Map<string, unknown>();
  placesOfRefs(fields, [], refs);
  const readOnly = readOnlyIssues(type, fields);
  for (const issue of readOnly) add(`fields.${issue.field}`, `fields.${issue.field} ${issue.message}`);
  const schema = crmWriteSchema(type);
  const result = schema.safeParse(fields, { reportInput: true });
  if (result.success) return;
  for (const issue of explainIssues(schema, result.error)) {
    if (readOnly.some((other) => other.field === issue.field)) continue;
    const atRef = refs.get(issue.field);
    if (atRef !== undefined && issue.code !== 'unrecognized_keys') {
      if (isWholeRef(atRef) || issue.code !== 'invalid_type') continue;
      const whole = wholeRefOfTemplate(atRef as string);
      const hint = whole ? ` (text: "${atRef as string}" makes a string; ${whole} alone keeps the value's type)` : '';
      add(`fields.${issue.field}`, `fields.${issue.field} ${issue.message}${hint}`);
      continue;
    }
    add(
      `fields.${issue.field}`,
      sentence({ ...issue, field: `fields.${issue.field}` }, 'fields', (parent) => `${type}${parent.length === 0 ? '' : ` ${fieldPath(parent)}`}`),
    );
  }
}

/** Where a value holds references (whole, or inside text), by field path. */
function placesOfRefs(value: unknown, path: PropertyKey[], out: Map<string, unknown>): void {
  if (isWholeRef(value) || isTemplate(value)) out.set(fieldPath(path), value);
  else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) placesOfRefs(item, [...path, index], out);
  } else if (isObject(value)) for (const [key, item] of Object.entries(value)) placesOfRefs(item, [...path, key], out);
}

/** Chaos settings the control API will read: a delay range and an outage length. */
function checkChaos(step: Record<string, unknown>, add: Add): void {
  const read = (field: 'delay' | 'outage', parse: (text: string, name: string) => unknown) => {
    const text = step[field];
    if (typeof text !== 'string' || text === '') return;
    try {
      parse(text, field);
    } catch (error) {
      if (!(error instanceof SandboxConfigError)) throw error;
      add(field, error.message);
    }
  };
  read('delay', parseDelayRange);
  read('outage', parseDuration);
}

/**
 * An explained issue as the end of a line: `amount must be a number, got string`, or, for an
 * unknown key, `colour is not a known field of Deal; allowed: …` (`label` names the object by the
 * path of its parent).
 */
function sentence(issue: ExplainedIssue, root: string, label: (parent: PropertyKey[]) => string): string {
  if (issue.code === 'unrecognized_keys' && issue.allowed) {
    return unknownField(issue.field, label(issue.path.slice(0, -1)), issue.path.at(-1), issue.allowed);
  }
  return `${issue.field || root} ${issue.message}`;
}

/** `fields.fristName is not a known field of Contact; did you mean firstName? Allowed: …` (or `; allowed: …` with no likely one). */
function unknownField(field: string, of: string, key: unknown, allowed: readonly string[]): string {
  const meant = didYouMean(key, allowed);
  return `${field} is not a known field of ${of}${meant ? `${meant} Allowed` : '; allowed'}: ${allowed.join(', ')}`;
}

/**
 * The records an `expect` step's events must have: their fields are the unified record's of the
 * event's objectType (a DELETE's also `connectionId`), so a typo (`fristName`) is told now, not
 * met as an expectation that can never hold.
 */
function checkExpectedRecords(step: Record<string, unknown>, add: Add): void {
  if (!Array.isArray(step.events)) return;
  for (const [index, matcher] of step.events.entries()) {
    if (!isObject(matcher) || !isObject(matcher.record) || !CRM_OBJECT_TYPES.includes(matcher.objectType as CrmObjectType)) continue;
    const type = matcher.objectType as CrmObjectType;
    const schema = crmRecordSchema(type);
    const fields = [...(objectKeys(schema) ?? []), 'connectionId'];
    const associations = objectKeys(schemaAt(schema, ['associations'])!) ?? [];
    const at = `events[${index}].record`;
    for (const key of Object.keys(matcher.record)) {
      if (!fields.includes(key)) add(`${at}.${key}`, unknownField(`${at}.${key}`, `a ${type} record`, key, fields));
    }
    const given = matcher.record.associations;
    if (!isObject(given)) continue;
    for (const key of Object.keys(given)) {
      if (!associations.includes(key)) add(`${at}.associations.${key}`, unknownField(`${at}.associations.${key}`, `${type} associations`, key, associations));
    }
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
