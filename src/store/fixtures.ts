import * as z from 'zod';
import { CRM_OBJECT_TYPES, type CrmObjectType, type CrmRecord, crmIdPattern, crmWriteSchema } from '../model/crm.js';
import { type EngagementUser, engagementUserSchema, type Mailbox, mailboxSchema } from '../model/engagement.js';
import { INTEGRATION_IDS, type IntegrationId } from '../model/integrations.js';
import type { FixtureFileContent } from '../model/platform.js';
import { SandboxConfigError } from '../shared/errors.js';
import { hashJson } from '../shared/json-hash.js';
import { describeIssues, type FieldIssue } from '../shared/validation.js';
import { linkOf } from './associations.js';
import { readOnlyIssues } from './connection-data.js';

/** A fixture CRM record: any writable field, plus optionally its id, nativeId and times. Left-out fields are generated. */
export type FixtureCrmRecord = Record<string, unknown> & {
  id?: string;
  nativeId?: string;
  createdTime?: string;
  modifiedTime?: string;
  associations?: Record<string, unknown>;
};

/** A validated fixture file: records added to every new connection of the integrations it names. */
export interface FixtureSet {
  /** Where it came from, for messages. */
  source: string;
  description?: string;
  /** The integrations it applies to; all when absent. */
  integrations?: IntegrationId[];
  crm: Partial<Record<CrmObjectType, FixtureCrmRecord[]>>;
  engagement: { users: Partial<EngagementUser>[]; mailboxes: Partial<Mailbox>[] };
}

/** The shape of a fixture file, as written by hand. */
export type FixtureFile = Omit<FixtureSet, 'source' | 'crm' | 'engagement'> & {
  crm?: FixtureSet['crm'];
  engagement?: Partial<FixtureSet['engagement']>;
};

function fixtureRecordSchema(type: CrmObjectType) {
  return crmWriteSchema(type)
    .extend({
      id: z
        .string()
        .regex(crmIdPattern(type), `must look like v.${type === 'EventAttendee' ? 'attendee' : type.toLowerCase()}.<32 lowercase hex>`)
        .optional(),
      createdTime: z.iso.datetime().optional(),
      modifiedTime: z.iso.datetime().optional(),
    })
    .strict();
}

/** Built on the first fixture checked, not at import: `serve` checks none before its first answer (the bundled ones when a data set first needs them). */
let fileSchema: ReturnType<typeof buildFixtureFileSchema> | undefined;
const fixtureFileSchema = () => (fileSchema ??= buildFixtureFileSchema());

const buildFixtureFileSchema = () =>
  z
    .object({
      $schema: z.string().optional(),
      description: z.string().optional(),
      integrations: z.array(z.enum(INTEGRATION_IDS)).min(1).optional(),
      crm: z
        .object(Object.fromEntries(CRM_OBJECT_TYPES.map((type) => [type, z.array(fixtureRecordSchema(type)).optional()])))
        .strict()
        .optional(),
      engagement: z
        .object({
          users: z.array(engagementUserSchema().partial().strict()).optional(),
          mailboxes: z.array(mailboxSchema().partial().strict()).optional(),
        })
        .strict()
        .optional(),
    })
    .strict();

/**
 * Validates fixtures: objects already in memory, or paths that `readPath` (the Node entry's file
 * reader) turns into parsed files. A bad fixture throws a SandboxConfigError naming the file
 * and the field; a path without a reader (in a browser) says to pass objects instead.
 *
 * @example loadFixtures([BUNDLED_FIXTURES], undefined)
 */
export function loadFixtures(sources: ReadonlyArray<string | FixtureFile>, readPath: ((path: string) => FixtureFileContent[]) | undefined): FixtureSet[] {
  const sets: FixtureSet[] = [];
  sources.forEach((source, index) => {
    if (typeof source !== 'string') {
      sets.push(validateFixture(source, `fixtures[${index}]`));
      return;
    }
    if (!readPath) {
      throw new SandboxConfigError(`fixtures[${index}]: a path (${source}) needs a file system; pass the fixture as an object (import the JSON) instead`);
    }
    for (const file of readPath(source)) sets.push(validateFixture(file.content, file.source));
  });
  return sets;
}

/** Validates one fixture (shape, ids, and that every link points at a record of the same file). */
export function validateFixture(input: unknown, source: string): FixtureSet {
  const fail = (issues: FieldIssue[]): never => {
    const first = issues[0]!;
    throw new SandboxConfigError(`fixture ${source}: ${first.field || '(file)'} ${first.message}`);
  };
  if (typeof input === 'object' && input !== null && typeof (input as { crm?: unknown }).crm === 'object') {
    const crm = (input as { crm: Record<string, unknown> }).crm ?? {};
    for (const [type, records] of Object.entries(crm)) {
      if (!Array.isArray(records) || !(CRM_OBJECT_TYPES as readonly string[]).includes(type)) continue;
      records.forEach((record, index) => {
        if (typeof record === 'object' && record !== null) {
          const issues = readOnlyIssues(type as CrmObjectType, record as Record<string, unknown>, ['id', 'createdTime', 'modifiedTime']);
          if (issues.length > 0) fail(issues.map((issue) => ({ ...issue, field: `crm.${type}[${index}].${issue.field}` })));
        }
      });
    }
  }
  const result = fixtureFileSchema().safeParse(input, { reportInput: true });
  if (!result.success) fail(describeIssues(result.error));
  const file = result.data!;
  const set: FixtureSet = {
    source,
    ...(file.description ? { description: file.description } : {}),
    ...(file.integrations ? { integrations: file.integrations } : {}),
    crm: (file.crm ?? {}) as FixtureSet['crm'],
    engagement: { users: file.engagement?.users ?? [], mailboxes: file.engagement?.mailboxes ?? [] },
  };
  const issues = referenceIssues(set);
  if (issues.length > 0) fail(issues);
  return set;
}

/** Ids must be unique, and links must point at a record of this file. */
function referenceIssues(set: FixtureSet): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const known = new Map<CrmObjectType, Set<string>>(CRM_OBJECT_TYPES.map((type) => [type, new Set<string>()]));
  for (const type of CRM_OBJECT_TYPES) {
    (set.crm[type] ?? []).forEach((record, index) => {
      if (!record.id) return;
      if (known.get(type)!.has(record.id)) issues.push({ field: `crm.${type}[${index}].id`, message: `repeats id ${record.id}` });
      known.get(type)!.add(record.id);
    });
  }
  for (const type of CRM_OBJECT_TYPES) {
    (set.crm[type] ?? []).forEach((record, index) => {
      for (const [field, value] of Object.entries(record.associations ?? {})) {
        const link = linkOf(type, field, record as unknown as CrmRecord);
        if (!link || value === null) continue;
        const ids = Array.isArray(value) ? (value as string[]) : [value as string];
        ids.forEach((id, at) => {
          if (!known.get(link.target)!.has(id)) {
            const where = Array.isArray(value) ? `${field}[${at}]` : field;
            issues.push({
              field: `crm.${type}[${index}].associations.${where}`,
              message: `points at no ${link.target} with that id in this file: ${JSON.stringify(id)}`,
            });
          }
        });
      }
    });
  }
  const userIds = new Set(set.engagement.users.map((user) => user.id).filter(Boolean));
  set.engagement.mailboxes.forEach((mailbox, index) => {
    const owner = mailbox.associations?.ownerUserId;
    if (owner && !userIds.has(owner)) {
      issues.push({
        field: `engagement.mailboxes[${index}].associations.ownerUserId`,
        message: `points at no engagement user in this file: ${JSON.stringify(owner)}`,
      });
    }
  });
  return issues;
}

const digests = new WeakMap<readonly FixtureSet[], string>();

/**
 * A digest (8 hex) of what fixture sets put into a data set (their integrations, records and
 * engagement users and mailboxes; not where they came from): a snapshot's data sets rebuild only
 * with the same. Worked out once per list.
 */
export function fixturesDigest(sets: readonly FixtureSet[]): string {
  let digest = digests.get(sets);
  if (digest === undefined) {
    const hash = hashJson(sets.map((set) => [set.integrations ?? null, set.crm, set.engagement]));
    digest = (hash >>> 0).toString(16).padStart(8, '0');
    digests.set(sets, digest);
  }
  return digest;
}
