import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../index.js';
import { CRM_OBJECT_TYPES, crmRecordSchema, withEmptyFields } from '../model/crm.js';
import { listBuiltIns } from '../node/scenario-files.js';
import { MAX_JSON_DEPTH } from '../shared/json-depth.js';
import { checkScenario, parseScenario, ScenarioError } from './load.js';
import { RefError, resolveRefs } from './refs.js';
import { type ScenarioDefinition, scenarioJsonSchema } from './schema.js';

/** The problem lines of a refused file (after the count, when there are several). */
const linesOf = (text: string) => {
  const lines = errorOf(text).message.split('\n');
  return lines.length === 1 ? lines : lines.slice(1);
};

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
    expect(errorOf('description: d\nsteps:\n  - create: { type: Dael }\n').message).toMatch(
      /^scenario x\.yaml: steps\[0\] \(create\): type must be one of "Contact", "Account"/,
    );
    expect(errorOf('description: d\nsteps:\n  - create: { type: Deal, fields: { colour: red } }\n').field).toBe('steps[0].create.fields.colour');
    expect(errorOf('description: d\nsteps:\n  - create: { type: Deal, feilds: { name: x } }\n').message).toBe(
      'scenario x.yaml: steps[0] (create): feilds is not a known field of the create step; did you mean fields? Allowed: type, fields, as, repeat, connection',
    );
    expect(errorOf('description: d\nsteps:\n  - frobnicate: 1\n').message).toBe(
      'scenario x.yaml: steps[0]: "frobnicate" is not a step kind; use one of link, webhook, status, advance, wait, create, update, delete, passthrough, chaos, expect, receiverCheck',
    );
    expect(errorOf('description: d\nsteps:\n  - { advance: 1s, status: READY }\n').message).toContain('a step has exactly one kind, got 2 keys');
    expect(errorOf('description: d\nsteps:\n  - advance: soon\n').message).toBe(
      'scenario x.yaml: steps[0] (advance): its value must look like 500ms, 3s, 2m, 1h or 1d, got "soon"',
    );
    expect(errorOf('steps: 1s\n').message).toBe('scenario x.yaml: steps must be an array, got string');
    // A bare number is refused as on the command line, saying what to write instead (decision 0032).
    expect(errorOf('description: d\nsteps:\n  - advance: 10\n').message).toBe(
      'scenario x.yaml: steps[0] (advance): its value needs a unit: 10ms, 10s, 10m, 10h or 10d; got 10',
    );
    expect(errorOf('description: d\nsteps:\n  - advance: { by: "10" }\n  - wait: { for: deliveries, max: 90 }\n').message).toBe(
      'scenario x.yaml: 2 problems:\nscenario x.yaml: steps[0] (advance): by needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"\nscenario x.yaml: steps[1] (wait): max needs a unit: 90ms, 90s, 90m, 90h or 90d; got 90',
    );
    expect(parseScenario('description: d\nsteps:\n  - advance: 0\n  - advance: 1.5s\n', 'a.yaml').definition.steps).toHaveLength(2);
    expect(errorOf('description: d\nsteps: []\n').field).toBe('steps');
    expect(errorOf('description: [unclosed\n').message).toMatch(/^scenario x\.yaml: not valid YAML/);
    // Where, and the line itself (quoted, so a tab shows), not a message cut at its colon.
    expect(errorOf('steps:\n\t- advance: 1s\n').message).toBe(
      'scenario x.yaml: not valid YAML: Tabs are not allowed as indentation at line 2, column 1: "\\t- advance: 1s"',
    );
    expect(errorOf('a: b: c\n').message).toBe(
      'scenario x.yaml: not valid YAML: Nested mappings are not allowed in compact mappings at line 1, column 4: "a: b: c"',
    );
    expect(errorOf('steps:\n  - advance: [1s\n').message).toMatch(/at line 3, column 1: the end of the file, after " {2}- advance: \[1s"$/);
    expect(errorOf('{"description": ', 'x.json').message).toMatch(/^scenario x\.json: not valid JSON/);
  });

  it('refuses references to names no earlier step defined, and record steps named two ways', () => {
    expect(errorOf('description: d\nsteps:\n  - update: { record: deal, fields: { name: x } }\n').message).toBe(
      'scenario x.yaml: steps[0] (update): record "deal" is not defined by an earlier step (name records with as)',
    );
    expect(errorOf('description: d\nsteps:\n  - create: { type: Note, fields: { associations: { dealIds: [$deal.id] } } }\n').message).toBe(
      'scenario x.yaml: steps[0] (create): fields.associations.dealIds[0]: $deal is not defined by an earlier step (name things with as); defined: main',
    );
    expect(errorOf('description: d\nsteps:\n  - create: { type: Deal, as: deal }\n  - delete: { record: deal, type: Deal }\n').message).toBe(
      'scenario x.yaml: steps[1] (delete): record and type/id cannot both be given',
    );
    expect(errorOf('description: d\nsteps:\n  - delete: { type: Deal }\n').message).toBe(
      'scenario x.yaml: steps[0] (delete): id is required with the other of type and id',
    );
    // Names defined earlier, main, and ${i} inside a repeat are fine.
    expect(() =>
      checkScenario(
        {
          description: 'd',
          steps: [
            { create: { type: 'Deal', as: 'deal' } },
            { create: { type: 'Note', repeat: 2, fields: { content: 'n ${i} of $${main.connectionId}', associations: { dealIds: ['$deal.id'] } } } },
          ],
        },
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

  it('a file without a description is valid and runs; its report says none', async () => {
    const scenario = parseScenario('steps:\n  - create: { type: Contact, as: ada }\n  - update: { record: ada, fields: { firstName: Ada } }\n', 'plain.yaml');
    expect(scenario).toMatchObject({ name: 'plain', description: '' });
    const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['k'] });
    try {
      const report = await sandbox.runScenario(scenario.definition);
      expect(report.failures).toEqual([]);
      expect(report.description).toBe('');
    } finally {
      sandbox.close();
    }
  });

  it('tells every problem of a file at once: one line each, naming the step, its kind and the field', () => {
    const error = errorOf(
      [
        'descripton: typo',
        'steps:',
        '  - create: { type: Account, as: acme }',
        '  - create: { type: Deal, as: deal, fields: { amount: lots, associations: { accountId: $acme.id } } }',
        '  - craete: { type: Contact, as: ada }',
        '  - update: { record: ada, fields: { firstName: Ada } }',
        '  - update: { record: ada2, fields: { name: x } }',
        '  - chaos: { duplicate: 2 }',
        '  - status: REDY',
        '',
      ].join('\n'),
      'my-story.yaml',
    );
    expect(error.message.split('\n')).toEqual([
      'scenario my-story.yaml: 7 problems:',
      'scenario my-story.yaml: descripton is not a known field of the scenario; did you mean description? Allowed: $schema, name, description, seed, connection, steps',
      'scenario my-story.yaml: steps[1] (create): fields.amount must be a number, got string',
      'scenario my-story.yaml: steps[1] (create): fields.associations.accountId is not a known field of Deal associations; did you mean accountIds? Allowed: contactIds, accountIds, noteIds, taskIds, eventIds, ownerUserId',
      'scenario my-story.yaml: steps[2]: "craete" is not a step kind; did you mean create? Use one of link, webhook, status, advance, wait, create, update, delete, passthrough, chaos, expect, receiverCheck',
      // steps[3] updates ada, which the misspelt step names: it is not blamed for that step's mistake.
      'scenario my-story.yaml: steps[4] (update): record "ada2" is not defined by an earlier step (name records with as); records: acme, deal, ada',
      'scenario my-story.yaml: steps[5] (chaos): duplicate must be a number from 0 to 1, got 2',
      'scenario my-story.yaml: steps[6] (status): its value must be one of "NEW_CONNECTION", "INITIAL_SYNCED", "READY", got "REDY"; did you mean "READY"?',
    ]);
    // The same, as data: what a program (or the control API's metadata.issues) reads.
    expect(error.problems[0]).toEqual({ step: null, kind: null, field: 'descripton', message: expect.stringContaining('descripton is not a known field') });
    expect(error.problems[2]).toEqual({
      step: 1,
      kind: 'create',
      field: 'steps[1].create.fields.associations.accountId',
      message:
        'fields.associations.accountId is not a known field of Deal associations; did you mean accountIds? Allowed: contactIds, accountIds, noteIds, taskIds, eventIds, ownerUserId',
    });
    expect(error.problems[3]).toMatchObject({ step: 2, kind: null, field: 'steps[2]' });
    expect(error.problems.map((problem) => problem.step)).toEqual([null, 1, 1, 2, 4, 5, 6]);
    expect(error.field).toBe('descripton');
  });

  it('lists at most 50 problems and counts the rest; every one is in problems', () => {
    const steps = Array.from({ length: 60 }, () => '  - advance: soon').join('\n');
    const error = errorOf(`steps:\n${steps}\n`);
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('scenario x.yaml: 60 problems:');
    expect(lines).toHaveLength(52);
    expect(lines[50]).toBe('scenario x.yaml: steps[49] (advance): its value must look like 500ms, 3s, 2m, 1h or 1d, got "soon"');
    expect(lines[51]).toBe('… and 10 more');
    expect(error.problems).toHaveLength(60);
    expect(error.problems[59]).toMatchObject({ step: 59, kind: 'advance', field: 'steps[59].advance' });
  });

  it('checks record fields as the control API will, with references in place', () => {
    const story = (...steps: string[]) =>
      ['steps:', '  - create: { type: Account, as: acme }', '  - create: { type: Contact, as: ada }', ...steps.map((step) => `  - ${step}`), ''].join('\n');
    // A reference is checked where it is: an unknown key holding one is still unknown.
    expect(linesOf(story('create: { type: Deal, fields: { associations: { accountId: $acme.id } } }'))).toEqual([
      'scenario x.yaml: steps[2] (create): fields.associations.accountId is not a known field of Deal associations; did you mean accountIds? Allowed: contactIds, accountIds, noteIds, taskIds, eventIds, ownerUserId',
    ]);
    // A whole-value reference may be of any type until the run; text with one inside is a string.
    expect(() =>
      parseScenario(
        story(
          'create: { type: Deal, fields: { amount: $acme.numberOfEmployees, name: "Deal of ${acme.name}", associations: { contactIds: [$ada.id], accountIds: $ada.associations.accountIds } } }',
        ),
        'x.yaml',
      ),
    ).not.toThrow();
    expect(linesOf(story('create: { type: Deal, fields: { amount: "${acme.numberOfEmployees}" } }'))).toEqual([
      'scenario x.yaml: steps[2] (create): fields.amount must be a number, got string (text: "${acme.numberOfEmployees}" makes a string; $acme.numberOfEmployees alone keeps the value\'s type)',
    ]);
    // Nested objects, fields the sandbox sets, and an update by name checked against the named record's type.
    expect(
      linesOf(
        story(
          'update: { record: acme, fields: { id: x, address: { cty: Paris }, associations: { contactIds: $ada.id } } }',
          'update: { record: ada, fields: { name: Ada } }',
        ),
      ),
    ).toEqual([
      'scenario x.yaml: steps[2] (update): fields.id is set by the sandbox and cannot be written',
      'scenario x.yaml: steps[2] (update): fields.address.cty is not a known field of Account address; did you mean city? Allowed: street, city, state, postalCode, country',
      'scenario x.yaml: steps[3] (update): fields.name is not a known field of Contact; allowed: nativeId, email, firstName, lastName, jobTitle, phone, mobilePhone, associations',
    ]);
    // Said once, as the control API says it (not also as an unknown key).
    expect(linesOf(story('create: { type: Event, fields: { associations: { eventAttendeeIds: [] } } }'))).toEqual([
      'scenario x.yaml: steps[2] (create): fields.associations.eventAttendeeIds is derived: set eventId on the EventAttendee instead',
    ]);
  });

  it('names records, connections and references as the runner will bind them', () => {
    const story = (...steps: string[]) =>
      [
        'steps:',
        '  - link: { as: crm2 }',
        '  - create: { type: Contact, as: ada }',
        '  - passthrough: { method: GET, path: contacts, as: answer }',
        ...steps.map((step) => `  - ${step}`),
        '',
      ].join('\n');
    expect(
      linesOf(story('delete: { record: crm2 }', 'delete: { record: answer }', 'status: { status: READY, connection: ada }', 'expect: { connection: crm3 }')),
    ).toEqual([
      'scenario x.yaml: steps[3] (delete): record "crm2" names a connection (a link step), not a record',
      'scenario x.yaml: steps[4] (delete): record "answer" names a passthrough answer, not a record',
      'scenario x.yaml: steps[5] (status): connection "ada" names a record, not a connection; connections: main, crm2',
      'scenario x.yaml: steps[6] (expect): connection "crm3" is not defined by an earlier step (name connections with a link step\'s as); connections: main, crm2',
    ]);
    // What a reference reads must exist in what its name stands for.
    expect(
      linesOf(
        story(
          'create: { type: Note, fields: { content: "${ada.firstNme} ${main.connId} ${answer.statusCode} ${answer.body.anything}", associations: { contactIds: [$ada.id.x] } } }',
        ),
      ),
    ).toEqual([
      'scenario x.yaml: steps[3] (create): fields.content: $ada has no field "firstNme"; did you mean firstName? Allowed: id, nativeId, createdTime, modifiedTime, email, firstName, lastName, jobTitle, phone, mobilePhone, associations',
      'scenario x.yaml: steps[3] (create): fields.content: $main has no field "connId"; allowed: connectionId, accessToken, integrationId, nativeOrgId, webhookUrl',
      'scenario x.yaml: steps[3] (create): fields.associations.contactIds[0]: $ada.id is a string: it has no field "x"',
    ]);
    expect(linesOf(story('create: { type: Note, fields: { content: "note ${i}" } }'))).toEqual([
      'scenario x.yaml: steps[3] (create): fields.content: ${i} is the index inside a repeat, and this create has no repeat',
    ]);
    expect(linesOf(story('update: { record: ada, fields: { firstName: $nobody.name, lastName: $nobody.name } }'))).toEqual([
      'scenario x.yaml: steps[3] (update): fields.firstName: $nobody is not defined by an earlier step (name things with as); defined: main, crm2, ada, answer',
    ]);
  });

  it('reads chaos settings as the control API will', () => {
    expect(linesOf('steps:\n  - chaos: { delay: 9s-1s, outage: soon, reorder: yes }\n')).toEqual([
      'scenario x.yaml: steps[0] (chaos): reorder must be a boolean, got string',
      'scenario x.yaml: steps[0] (chaos): delay: the range 9s-1s ends before it starts',
      'scenario x.yaml: steps[0] (chaos): outage must look like 500ms, 3s, 2m, 1h or 1d, got "soon"',
    ]);
  });

  it('accepts what the runner resolves: every field a reference may read, run for real', async () => {
    const definition = {
      steps: [
        { create: { type: 'Account', as: 'acme', fields: { address: { city: 'Paris' } } } },
        { passthrough: { method: 'GET', path: 'crm/v3/objects/contacts', as: 'answer' } },
        {
          create: {
            type: 'Note',
            fields: {
              content:
                '${main.connectionId} ${main.accessToken} ${main.integrationId} ${main.nativeOrgId} ${main.webhookUrl} ${acme.address.city} ${acme.nativeId} ${answer.statusCode} ${answer.url}',
              associations: { accountIds: ['$acme.id'] },
            },
          },
        },
      ],
    };
    expect(() => checkScenario(definition, '(code)')).not.toThrow();
    const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['k'] });
    try {
      const report = await sandbox.runScenario(definition as ScenarioDefinition);
      expect(report.failures).toEqual([]);
      // References to records are checked against the record schema: it has every field a record has
      // (a record answers without its empty fields; the runner reads those as null).
      const { connectionId } = sandbox.connect();
      for (const type of CRM_OBJECT_TYPES) {
        const record = sandbox.listRecords(connectionId, type)[0];
        expect(record, type).toBeDefined();
        const schemaKeys = Object.keys(crmRecordSchema(type).shape);
        expect(schemaKeys, type).toEqual(expect.arrayContaining(Object.keys(record!)));
        expect(Object.keys(withEmptyFields(type, record!)).sort(), type).toEqual([...schemaKeys].sort());
      }
    } finally {
      sandbox.close();
    }
  });

  it('refuses a definition nested deeper than the limit, naming the depth, from YAML, JSON or code, at any depth', () => {
    const message = (source: string) =>
      `scenario ${source}: the definition is nested more than ${MAX_JSON_DEPTH} levels deep (objects and arrays inside each other)`;
    const fields = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    // steps (2) > the step (3) > create (4) > fields (5) > x: 5 levels above what x holds.
    const json = (depth: number) => `{"steps":[{"create":{"type":"Contact","fields":{"x":${fields(depth)}}}}]}`;
    expect(() => parseScenario(json(MAX_JSON_DEPTH - 5), 'deep.json')).toThrow(/fields.x/); // as deep as allowed: refused for its field, not its depth
    expect(errorOf(json(MAX_JSON_DEPTH - 4), 'deep.json').message).toBe(message('deep.json'));
    expect(errorOf(json(20_000), 'deep.json').message).toBe(message('deep.json'));
    const yamlFlow = (depth: number) => `steps:\n  - create: { type: Contact, fields: { x: ${fields(depth)} } }\n`;
    expect(() => parseScenario(yamlFlow(MAX_JSON_DEPTH - 5), 'deep.yaml')).toThrow(/fields.x/);
    expect(errorOf(yamlFlow(MAX_JSON_DEPTH - 4), 'deep.yaml').message).toBe(message('deep.yaml'));
    expect(errorOf(yamlFlow(20_000), 'deep.yaml').message).toBe(message('deep.yaml'));
    // Block collections count as flow ones do: 2,000 maps nested by indentation (the YAML parser's own recursion overflows before that).
    const block = `steps:\n  - create:\n      type: Contact\n      fields:\n${Array.from({ length: 2_000 }, (_, i) => `${' '.repeat(8 + i)}k:`).join('\n')} 1\n`;
    expect(errorOf(block, 'block.yaml').message).toBe(message('block.yaml'));
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(() => checkScenario({ steps: [{ create: { type: 'Contact', fields: { x: deep } } }] }, '(code)')).toThrow(message('(code)'));
  });
});

describe('the records an expect step names', () => {
  it("are checked against the event object type's record: a mistyped field is refused with the one likely meant, before anything runs", () => {
    const text = [
      'description: t',
      'steps:',
      '  - expect:',
      '      events:',
      '        - { objectType: Contact, eventType: CREATE, record: { fristName: Ada, associations: { ownerUserID: x } } }',
      '        - { objectType: Contact, eventType: DELETE, record: { id: x, connectionId: y } }',
      '        - { status: READY }',
    ].join('\n');
    const error = (() => {
      try {
        parseScenario(text, 'x.yaml');
      } catch (caught) {
        return caught as ScenarioError;
      }
      throw new Error('it did not throw');
    })();
    expect(error.problems.map((problem) => problem.message)).toEqual([
      expect.stringMatching(/^events\[0\]\.record\.fristName is not a known field of a Contact record; did you mean firstName\? Allowed: id, nativeId, /),
      expect.stringMatching(
        /^events\[0\]\.record\.associations\.ownerUserID is not a known field of Contact associations; did you mean ownerUserId\? Allowed: /,
      ),
    ]);
    // The fields a record has (a DELETE's connectionId too) are taken, and a matcher without objectType is not checked.
    expect(() => parseScenario(text.replace('fristName', 'firstName').replace('ownerUserID', 'ownerUserId'), 'x.yaml')).not.toThrow();
  });
});
