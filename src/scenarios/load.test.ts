import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkScenario, listBuiltIns, parseScenario, ScenarioError } from './load.js';
import { resolveRefs, RefError } from './refs.js';
import { scenarioJsonSchema } from './schema.js';

const errorOf = (text: string, source = 'x.yaml') => {
  try {
    parseScenario(text, source);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return error as ScenarioError;
  }
  throw new Error('expected the scenario to be refused');
};

describe('scenario files', () => {
  it('lists every built-in with its description, and each one is valid', () => {
    const names = listBuiltIns().map((item) => item.name);
    expect(names).toEqual(['bulk-import', 'connection-lifecycle', 'crm-activity', 'deal-won', 'receiver-check', 'webhook-outage']);
    for (const item of listBuiltIns()) expect(item.description.length).toBeGreaterThan(10);
  });

  it('reads YAML and JSON alike', () => {
    const yaml = parseScenario('description: d\nsteps:\n  - advance: 3s\n  - status: READY\n', 'a.yaml');
    const json = parseScenario(JSON.stringify({ description: 'd', steps: [{ advance: '3s' }, { status: 'READY' }] }), 'a.json');
    expect(yaml.definition).toEqual(json.definition);
    expect(yaml.name).toBe('a');
  });

  it('names the file, the step (index and kind) and the field of what is wrong', () => {
    expect(errorOf('description: d\nsteps:\n  - advance: 3s\n  - create: { type: Deal, fields: { amount: lots } }\n').message).toBe(
      'scenario x.yaml: steps[1] (create): fields.amount must be a number, got string',
    );
    expect(errorOf('description: d\nsteps:\n  - create: { type: Dael }\n').message).toMatch(/^scenario x\.yaml: steps\[0\] \(create\): type must be one of "Contact", "Account"/);
    expect(errorOf('description: d\nsteps:\n  - create: { type: Deal, fields: { colour: red } }\n').field).toBe('steps[0].create.fields.colour');
    expect(errorOf('description: d\nsteps:\n  - frobnicate: 1\n').message).toBe(
      'scenario x.yaml: steps[0]: "frobnicate" is not a step kind; use one of link, webhook, status, advance, wait, create, update, delete, passthrough, chaos, expect, receiverCheck',
    );
    expect(errorOf('description: d\nsteps:\n  - { advance: 1s, status: READY }\n').message).toContain('a step has exactly one kind, got 2 keys');
    expect(errorOf('description: d\nsteps:\n  - advance: soon\n').message).toBe('scenario x.yaml: steps[0] (advance): its value must look like 500ms, 3s, 2m, 1h or 1d');
    expect(errorOf('steps:\n  - advance: 1s\n').message).toBe('scenario x.yaml: description is required');
    expect(errorOf('description: d\nsteps: []\n').field).toBe('steps');
    expect(errorOf('description: [unclosed\n').message).toMatch(/^scenario x\.yaml: not valid YAML/);
    expect(errorOf('{"description": ', 'x.json').message).toMatch(/^scenario x\.json: not valid JSON/);
  });

  it('refuses references to names no earlier step defined, and record steps named two ways', () => {
    expect(errorOf('description: d\nsteps:\n  - update: { record: deal, fields: { name: x } }\n').message).toBe(
      'scenario x.yaml: steps[0] (update): record "deal" is not defined by an earlier step',
    );
    expect(errorOf('description: d\nsteps:\n  - create: { type: Note, fields: { associations: { dealIds: [$deal.id] } } }\n').message).toBe(
      'scenario x.yaml: steps[0] (create): $deal is not defined by an earlier step (name things with as)',
    );
    expect(errorOf('description: d\nsteps:\n  - create: { type: Deal, as: deal }\n  - delete: { record: deal, type: Deal }\n').message).toBe(
      'scenario x.yaml: steps[1] (delete): record and type/id cannot both be given',
    );
    expect(errorOf('description: d\nsteps:\n  - delete: { type: Deal }\n').message).toBe('scenario x.yaml: steps[0] (delete): id is required with the other of type and id');
    // Names defined earlier, main, and ${i} inside a repeat are fine.
    expect(() =>
      checkScenario(
        { description: 'd', steps: [{ create: { type: 'Deal', as: 'deal' } }, { create: { type: 'Note', repeat: 2, fields: { content: 'n ${i} of $${main.connectionId}', associations: { dealIds: ['$deal.id'] } } } }] },
        '(code)',
      ),
    ).not.toThrow();
  });

  it('resolves whole-value and inline references, and names a missing field', () => {
    const scope = { deal: { id: 'v.deal.1', amount: 5, tags: ['a'] }, i: 3 };
    expect(resolveRefs({ a: '$deal.amount', b: 'deals/${deal.id}?n=${i}', c: ['$deal.tags'], d: '$$5 off' }, scope)).toEqual({
      a: 5,
      b: 'deals/v.deal.1?n=3',
      c: [['a']],
      d: '$5 off',
    });
    expect(() => resolveRefs('$deal.nope', scope)).toThrow(new RefError('$deal has no field "nope"'));
  });

  it('ships the JSON Schema generated from the zod schema', () => {
    const shipped = JSON.parse(readFileSync(new URL('../../scenarios/scenario.schema.json', import.meta.url), 'utf8'));
    expect(shipped).toEqual(scenarioJsonSchema());
    expect(shipped.properties.steps.items.anyOf).toHaveLength(12);
  });
});
