import { describe, expect, it } from 'vitest';
import { seededData } from '../../test/helpers/seeded-data.js';
import type { IntegrationId } from '../model/integrations.js';
import { downstreamFor } from './index.js';
import type { DownstreamRequest } from './types.js';

/**
 * The engagement platforms' own objects: engagement users, their tasks and actions (sequence
 * states, cadence actions), consistent both ways and served as each platform's docs describe.
 */

function makeData(integrationId: IntegrationId) {
  const { data, context } = seededData(integrationId);
  const call = (method: DownstreamRequest['method'], path: string, body?: unknown, query: Record<string, string> = {}) =>
    downstreamFor(integrationId).handle({ method, path, query, body }, context) as { statusCode: number; headers: Record<string, string>; body: any };
  return { data, context, call };
}

describe('engagement tasks and actions in the store', () => {
  it.each(['outreach', 'salesloft', 'apollo'] as const)('%s: every user’s taskIds and actionIds name records that name the user back', (integrationId) => {
    const { data } = makeData(integrationId);
    let tasks = 0;
    let actions = 0;
    for (const user of data.users.values()) {
      for (const id of user.associations.taskIds) expect(data.engagementTasks.get(id)?.associations.userId).toBe(user.id);
      for (const id of user.associations.actionIds) expect(data.engagementActions.get(id)?.associations.userId).toBe(user.id);
      tasks += user.associations.taskIds.length;
      actions += user.associations.actionIds.length;
    }
    expect(tasks).toBe(data.engagementTasks.size);
    expect(actions).toBe(data.engagementActions.size);
    expect(tasks).toBeGreaterThan(0);
    expect(actions).toBeGreaterThan(0);
  });

  it('leaves CRM integrations without engagement tasks or actions', () => {
    const { data } = makeData('hubspot');
    expect(data.engagementTasks.size + data.engagementActions.size).toBe(0);
    for (const user of data.users.values()) expect(user.associations).toEqual({ taskIds: [], actionIds: [] });
  });
});

describe('outreach engagement resources', () => {
  it('serves the engagement users at users, numbered as mailboxes name them, paged by links.next to the end', () => {
    const { data, call } = makeData('outreach');
    const seen: number[] = [];
    let query: Record<string, string> = { 'page[size]': '10' };
    for (let guard = 0; guard < 20; guard++) {
      const body = call('GET', 'users', undefined, query).body;
      seen.push(...body.data.map((user: any) => user.id));
      expect(body.meta.count).toBe(data.users.size);
      if (!body.links.next) break;
      query = Object.fromEntries(new URL(body.links.next).searchParams);
    }
    expect(seen).toEqual(data.users.entries().map((entry) => entry.seq));
    const mailbox = call('GET', 'mailboxes', undefined, { 'page[size]': '1' }).body.data[0];
    const owner = call('GET', `users/${mailbox.relationships.user.data.id}`).body.data;
    expect(owner.attributes.email).toBe(data.users.get(data.mailboxes.values().next().value!.associations.ownerUserId!)!.email);
  });

  it('filters tasks by owner and state, and includes their owner and prospect', () => {
    const { data, call } = makeData('outreach');
    const user = data.users.entries().find((entry) => entry.record.associations.taskIds.length > 1)!;
    const answer = call('GET', 'tasks', undefined, { 'filter[owner][id]': String(user.seq), include: 'owner,prospect' }).body;
    expect(answer.data.map((task: any) => task.id).sort()).toEqual(user.record.associations.taskIds.map((id) => data.engagementTasks.entry(id)!.seq).sort());
    for (const task of answer.data) expect(task.relationships.owner.data).toEqual({ type: 'user', id: user.seq });
    expect(answer.included.find((item: any) => item.type === 'user')).toMatchObject({ id: user.seq, attributes: { email: user.record.email } });
    const prospects = answer.included.filter((item: any) => item.type === 'prospect');
    for (const prospect of prospects) expect(data.crm.Contact.getByNativeId(String(prospect.id))).toBeDefined();
    const incomplete = call('GET', 'tasks', undefined, { 'filter[state]': 'incomplete', 'page[size]': '1000' }).body;
    expect(incomplete.meta.count).toBe([...data.engagementTasks.values()].filter((task) => task.state === 'incomplete').length);
    expect(call('GET', 'tasks', undefined, { 'filter[colour]': 'red' })).toMatchObject({ statusCode: 400, body: { errors: [{ id: 'invalidParameter' }] } });
    expect(call('GET', 'tasks/99999')).toMatchObject({ statusCode: 404, body: { errors: [{ id: 'resourceNotFound' }] } });
  });

  it('creates, updates and deletes tasks, keeping the owners’ taskIds in step', () => {
    const { data, call } = makeData('outreach');
    const [first, second] = data.users.entries();
    const contact = [...data.crm.Contact.values()][2]!;
    const created = call('POST', 'tasks', {
      data: {
        type: 'task',
        attributes: { action: 'call', note: 'Ring them', dueAt: '2025-02-01T10:00:00Z' },
        relationships: { owner: { data: { type: 'user', id: first!.seq } }, prospect: { data: { type: 'prospect', id: Number(contact.nativeId) } } },
      },
    });
    expect(created.statusCode).toBe(201);
    expect(created.body.data).toMatchObject({
      type: 'task',
      attributes: { action: 'call', note: 'Ring them', dueAt: '2025-02-01T10:00:00.000Z', state: 'incomplete' },
      relationships: { owner: { data: { type: 'user', id: first!.seq } }, prospect: { data: { type: 'prospect', id: Number(contact.nativeId) } } },
    });
    const id = created.body.data.id;
    const task = data.engagementTasks.entries().find((entry) => entry.seq === id)!.record;
    expect(data.users.get(first!.record.id)!.associations.taskIds).toContain(task.id);
    expect(call('GET', `tasks/${id}`).body.data.attributes.note).toBe('Ring them');

    const moved = call('PATCH', `tasks/${id}`, {
      data: { type: 'task', attributes: { note: 'Email instead' }, relationships: { owner: { data: { type: 'user', id: second!.seq } } } },
    });
    expect(moved.body.data).toMatchObject({ attributes: { note: 'Email instead' }, relationships: { owner: { data: { id: second!.seq } } } });
    expect(data.users.get(first!.record.id)!.associations.taskIds).not.toContain(task.id);
    expect(data.users.get(second!.record.id)!.associations.taskIds).toContain(task.id);

    expect(call('DELETE', `tasks/${id}`).statusCode).toBe(204);
    expect(call('GET', `tasks/${id}`).statusCode).toBe(404);
    expect(data.users.get(second!.record.id)!.associations.taskIds).not.toContain(task.id);
  });

  it('refuses bad task writes in JSON:API errors, changing nothing', () => {
    const { data, call } = makeData('outreach');
    const size = data.engagementTasks.size;
    const owner = { owner: { data: { type: 'user', id: 1 } } };
    expect(call('POST', 'tasks', { data: { type: 'prospect', attributes: { action: 'call' }, relationships: owner } }).statusCode).toBe(409);
    expect(call('POST', 'tasks', { data: { type: 'task', attributes: { action: 'call' } } })).toMatchObject({
      statusCode: 422,
      body: { errors: [{ source: { pointer: '/data/relationships/owner' } }] },
    });
    expect(call('POST', 'tasks', { data: { type: 'task', attributes: { action: 'dance' }, relationships: owner } })).toMatchObject({
      statusCode: 422,
      body: { errors: [{ source: { pointer: '/data/attributes/action' } }] },
    });
    expect(call('POST', 'tasks', { data: { type: 'task', attributes: { action: 'call', dueAt: 'soon' }, relationships: owner } }).statusCode).toBe(422);
    expect(call('POST', 'tasks', { data: { type: 'task', attributes: { action: 'call', colour: 'red' }, relationships: owner } }).statusCode).toBe(422);
    expect(
      call('POST', 'tasks', {
        data: { type: 'task', attributes: { action: 'call' }, relationships: { ...owner, prospect: { data: { type: 'prospect', id: 1 } } } },
      }).statusCode,
    ).toBe(422);
    expect(call('POST', 'tasks', { nope: true }).statusCode).toBe(400);
    expect(data.engagementTasks.size).toBe(size);
  });

  it('serves actions as sequenceStates in the org’s sequences', () => {
    const { data, call } = makeData('outreach');
    const sequences = call('GET', 'sequences').body.data;
    expect(sequences.map((sequence: any) => sequence.attributes.name)).toEqual([
      'Outbound - New Leads',
      'Re-engage Closed Lost',
      'Event Follow-up',
      'Inbound Demo Request',
      'Q3 Webinar Invite (archived)',
    ]);
    // The fifth is archived: it takes no new prospects.
    expect(sequences.map((sequence: any) => sequence.attributes.enabled)).toEqual([true, true, true, true, false]);
    const states = call('GET', 'sequenceStates', undefined, { 'filter[sequence][id]': '2', 'page[size]': '1000' }).body.data;
    expect(states.length).toBe([...data.engagementActions.values()].filter((action) => action.sequence === 2).length);
    for (const state of states) expect(state.relationships.sequence.data).toEqual({ type: 'sequence', id: 2 });
  });
});

describe('outreach CRM resources: filter, sort and include', () => {
  it('filters prospects by email and by account, sorts them, and includes their account', () => {
    const { data, call } = makeData('outreach');
    const contacts = [...data.crm.Contact.values()] as Array<{ email: string; nativeId: string; associations: { accountIds: string[] } }>;
    const c = contacts[7]!;
    const byEmail = call('GET', 'prospects', undefined, { 'filter[emails]': c.email }).body;
    expect(byEmail.data.map((prospect: any) => prospect.id)).toEqual([Number(c.nativeId)]);
    const withAccount = contacts.find((contact) => contact.associations.accountIds.length > 0)!;
    const account = data.crm.Account.get(withAccount.associations.accountIds[0]!)!;
    const inAccount = call('GET', 'prospects', undefined, { 'filter[account][id]': account.nativeId, include: 'account', 'page[size]': '1000' }).body;
    expect(inAccount.data.map((prospect: any) => prospect.id)).toContain(Number(withAccount.nativeId));
    for (const prospect of inAccount.data) expect(prospect.relationships.account.data.id).toBe(Number(account.nativeId));
    expect(inAccount.included).toEqual([expect.objectContaining({ type: 'account', id: Number(account.nativeId) })]);
    const sorted = call('GET', 'prospects', undefined, { sort: '-lastName', 'page[size]': '1000' }).body.data.map(
      (prospect: any) => prospect.attributes.lastName,
    );
    expect(sorted).toEqual([...sorted].sort((a: string, b: string) => b.localeCompare(a)));
    expect(call('GET', 'prospects', undefined, { sort: 'shoeSize' })).toMatchObject({ statusCode: 400, body: { errors: [{ id: 'invalidParameter' }] } });
    // A prospect's owner is a CRM user: found by id and by include, though users lists the engagement users.
    const owned = call('GET', 'prospects', undefined, { include: 'owner', 'page[size]': '50' }).body;
    const ownerRef = owned.data.find((prospect: any) => prospect.relationships.owner.data)!.relationships.owner.data;
    expect(call('GET', `users/${ownerRef.id}`).body.data).toMatchObject({ type: 'user', id: ownerRef.id });
    expect(owned.included).toContainEqual(expect.objectContaining({ type: 'user', id: ownerRef.id }));
    // A plain list pages the store as before.
    expect(call('GET', 'prospects', undefined, { 'page[size]': '5' }).body.data).toHaveLength(5);
  });
});

describe('salesloft engagement resources', () => {
  it('serves users, tasks, actions and cadences with page/per_page and their filters', () => {
    const { data, call } = makeData('salesloft');
    const users = call('GET', 'users', undefined, { per_page: '100', include_paging_counts: 'true' }).body;
    expect(users.metadata.paging.total_count).toBe(data.users.size);
    const user = data.users.entries().find((entry) => entry.record.associations.taskIds.length > 0)!;
    const tasks = call('GET', 'tasks', undefined, { user_id: String(user.seq), per_page: '100' }).body.data;
    expect(tasks).toHaveLength(user.record.associations.taskIds.length);
    expect(tasks[0].user).toEqual({ id: user.seq, _href: expect.stringContaining(`/users/${user.seq}`) });
    const scheduled = call('GET', 'tasks', undefined, { current_state: 'scheduled', per_page: '100', include_paging_counts: 'true' }).body;
    expect(scheduled.metadata.paging.total_count).toBe([...data.engagementTasks.values()].filter((task) => task.state === 'incomplete').length);
    const actions = call('GET', 'actions', undefined, { per_page: '100', include_paging_counts: 'true' }).body;
    expect(actions.metadata.paging.total_count).toBe(data.engagementActions.size);
    expect(actions.data[0]).toMatchObject({ cadence: { id: expect.any(Number) }, status: expect.stringMatching(/^(pending|completed)$/) });
    const cadences = call('GET', 'cadences').body.data;
    expect(cadences.map((cadence: any) => cadence.archived_at === null)).toEqual([true, true, true, true, false]);
    // A note's user is a CRM user, still readable at users/{id}.
    const note = call('GET', 'notes', undefined, { per_page: '100' }).body.data.find((item: any) => item.user)!;
    expect(call('GET', `users/${note.user.id}`).body.data).toMatchObject({ id: note.user.id });
    expect(call('GET', 'tasks/99999')).toMatchObject({ statusCode: 404, body: { status: 404, error: 'Not Found' } });
  });
});

describe('salesloft task writes', () => {
  it('creates, completes, reassigns and deletes a task; users’ taskIds follow; bad fields are 422 naming them', () => {
    const { data, call } = makeData('salesloft');
    const [first, second] = data.users.entries();
    const person = [...data.crm.Contact.values()][4]!;
    const created = call('POST', 'tasks', {
      subject: 'Call back',
      person_id: Number(person.nativeId),
      user_id: first!.seq,
      task_type: 'call',
      due_date: '2025-02-03',
    });
    expect(created.statusCode).toBe(200);
    expect(created.body.data).toMatchObject({
      subject: 'Call back',
      task_type: 'call',
      current_state: 'scheduled',
      due_date: '2025-02-03',
      person: { id: Number(person.nativeId) },
      user: { id: first!.seq },
    });
    const id = created.body.data.id;
    const taskId = data.engagementTasks.entries().find((entry) => entry.seq === id)!.record.id;
    expect(data.users.get(first!.record.id)!.associations.taskIds).toContain(taskId);
    const done = call('PUT', `tasks/${id}`, { current_state: 'completed', user_id: second!.seq });
    expect(done.body.data).toMatchObject({ current_state: 'completed', completed_at: '2025-01-01T00:00:00.000Z', user: { id: second!.seq } });
    expect(data.users.get(second!.record.id)!.associations.taskIds).toContain(taskId);
    expect(data.users.get(first!.record.id)!.associations.taskIds).not.toContain(taskId);
    expect(call('DELETE', `tasks/${id}`).statusCode).toBe(204);
    expect(data.users.get(second!.record.id)!.associations.taskIds).not.toContain(taskId);
    const size = data.engagementTasks.size;
    expect(call('POST', 'tasks', { subject: 'x', person_id: Number(person.nativeId), user_id: first!.seq, task_type: 'call' })).toMatchObject({
      statusCode: 422,
      body: { errors: { due_date: ["can't be blank"] } },
    });
    expect(call('POST', 'tasks', { subject: 'x', person_id: 1, user_id: first!.seq, task_type: 'call', due_date: '2025-02-03' })).toMatchObject({
      statusCode: 422,
      body: { errors: { person_id: expect.any(Array) } },
    });
    expect(call('PUT', 'tasks/99999', { subject: 'x' }).statusCode).toBe(404);
    expect(data.engagementTasks.size).toBe(size);
  });
});

describe('apollo engagement resources', () => {
  it('searches tasks by user and status, and people by keywords', () => {
    const { data, call } = makeData('apollo');
    const user = data.users.entries().find((entry) => entry.record.associations.taskIds.length > 0)!;
    const tasks = call('POST', 'tasks/search', { user_ids: [user.record.id.slice(0, 24)], per_page: 100 }).body;
    expect(tasks.tasks).toHaveLength(user.record.associations.taskIds.length);
    expect(tasks.pagination).toMatchObject({ page: 1, total_entries: user.record.associations.taskIds.length });
    const users = call('POST', 'users/search', { per_page: 100 }).body.users;
    expect(users.map((item: any) => item.id)).toContain(tasks.tasks[0].user_id);
    const contact = [...data.crm.Contact.values()][5] as { lastName: string; nativeId: string };
    const people = call('POST', 'mixed_people/search', { q_keywords: contact.lastName, per_page: 100 }).body.people;
    expect(people.map((person: any) => person.id)).toContain(contact.nativeId);
    expect(call('POST', 'tasks/search', { user_ids: 'x', per_page: 'many' })).toMatchObject({ statusCode: 422 });
    const mine = call('POST', 'contacts/search', { q_keywords: contact.lastName, per_page: 100 }).body;
    expect(mine.contacts.map((person: any) => person.id)).toContain(contact.nativeId);
    expect(mine.pagination.total_entries).toBeLessThan(data.crm.Contact.size);
    const account = [...data.crm.Account.values()][3] as { name: string; nativeId: string };
    expect(call('POST', 'accounts/search', { q_organization_name: account.name }).body.accounts.map((item: any) => item.id)).toContain(account.nativeId);
  });
});
