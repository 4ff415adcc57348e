import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/index.js';
import { callSandbox } from './helpers/sandbox-call.js';

/**
 * An action is one step of a contact's sequence (decision 0045): completing it answers 200 and it
 * then reads `complete` with its `completedTime`, while the contact's next step is an action of
 * its own, due later. Natively the enrolment stays one record (an Outreach sequence state, a
 * Salesloft cadence membership, an Apollo campaign status) at the next step; Salesloft's own
 * actions are the steps.
 */
describe('completing an action', () => {
  let sandbox: Sandbox;
  const call = (method: string, path: string, body?: unknown) => callSandbox(sandbox, method, path, body === undefined ? {} : { body });

  beforeAll(() => {
    sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
  });
  afterAll(() => sandbox.close());

  const read = async (accessToken: string, id: string) => (await call('GET', `/engagement/action?accessToken=${accessToken}&id=${id}`)).body.action;
  const stepsOf = async (accessToken: string, contact: string) =>
    (await call('GET', `/engagement/actions?accessToken=${accessToken}&limit=200`)).body.actions.filter(
      (action: { associations: { contactId?: string } }) => action.associations.contactId === contact,
    );

  for (const platform of ['outreach', 'salesloft', 'apollo']) {
    it(`${platform}: the done step reads complete with completedTime; the next step is an action of its own; the enrolment is one, at the next step`, async () => {
      const { publicToken } = (await call('POST', '/sandbox/public-token', { integrationId: platform })).body;
      const { accessToken } = (await call('POST', '/link/exchange', { publicToken })).body;
      await sandbox.advance('10s');
      // A seeded call step, due: a contact some way into a sequence.
      const actions = (await call('GET', `/engagement/actions?accessToken=${accessToken}&limit=200&allFields=true`)).body.actions;
      const callStep = actions.find((action: { type: string; status: string }) => action.type === 'call' && action.status === 'to_do');
      expect(callStep, platform).toBeDefined();
      const contact = callStep.associations.contactId;
      const person = (await call('GET', `/engagement/contact?accessToken=${accessToken}&id=${contact}`)).body.contact;
      const before = await nativeEnrolments(platform, accessToken, person);
      const stepsBefore = await stepsOf(accessToken, contact);

      await sandbox.advance('1h');
      const completed = await call('POST', '/engagement/action/complete', { accessToken, id: callStep.id, fields: { type: 'call', durationSeconds: 42 } });
      expect(completed.body).toEqual({ id: callStep.id });
      const after = await read(accessToken, callStep.id);
      expect(after).toMatchObject({ status: 'complete', type: 'call' });
      expect(after.completedTime).toBe(after.modifiedTime);
      expect(Date.parse(after.completedTime)).toBeGreaterThan(Date.parse(callStep.modifiedTime));
      expect(after.associations.callId).toMatch(/^[0-9a-f]{32}$/);

      // The next step: an action of its own, to do, due later, on the contact and named by it.
      const stepsAfter = await stepsOf(accessToken, contact);
      expect(stepsAfter.length).toBe(stepsBefore.length + 1);
      const next = stepsAfter.find((step: { id: string }) => !stepsBefore.some((old: { id: string }) => old.id === step.id));
      expect(next).toMatchObject({ status: 'to_do', associations: { contactId: contact } });
      expect(Date.parse(next.dueDate)).toBeGreaterThan(Date.parse(after.completedTime));
      const named = (await call('GET', `/engagement/contact?accessToken=${accessToken}&id=${contact}`)).body.contact.associations.actionIds;
      expect(named).toContain(next.id);
      expect(named).toContain(callStep.id);
      // Completing the done one again is refused by name.
      const again = await call('POST', '/engagement/action/complete', { accessToken, id: callStep.id, fields: {} });
      expect(again.status).toBe(400);
      expect(again.body.metadata.field).toBe('id');

      // A snapshot keeps the steps as they are.
      const restored = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
      restored.restore(sandbox.snapshot());
      const steps = await callSandbox(restored, 'GET', `/engagement/actions?accessToken=${accessToken}&limit=200`);
      expect(steps.body.actions).toEqual((await call('GET', `/engagement/actions?accessToken=${accessToken}&limit=200`)).body.actions);
      await restored.close();

      // Natively, the enrolment is still one record, a step further on.
      const native = await nativeEnrolments(platform, accessToken, person);
      expect(native.length).toBe(before.length);
      const moved = native.filter((item: { step: number }, index: number) => item.step !== before[index]!.step);
      expect(moved).toHaveLength(1);
      expect(moved[0]!.step).toBe(before[native.indexOf(moved[0]!)]!.step + 1);
    });
  }

  /** What the platform shows of a contact's enrolments: the step each is at, and whether it is active. */
  async function nativeEnrolments(platform: string, accessToken: string, person: { id: string }) {
    const native = async (path: string, query?: Record<string, string>) =>
      (await call('POST', '/crm/passthrough', { accessToken, method: 'GET', path, ...(query ? { query } : {}) })).body.body;
    const contact = (await call('GET', `/engagement/contact?accessToken=${accessToken}&id=${person.id}&allFields=true`)).body.contact.additional;
    if (platform === 'outreach') {
      const states = await native('sequenceStates', { 'filter[prospect][id]': String(contact.id) });
      return states.data.map((state: any) => ({
        step: Number(String(state.relationships.sequenceStep.data.id).slice(-1)),
        active: state.attributes.state === 'active',
      }));
    }
    if (platform === 'salesloft') {
      const memberships = await native('cadence_memberships', { person_id: String(contact.id) });
      return Promise.all(
        memberships.data.map(async (membership: any) => {
          const latest = await native(`actions/${membership.latest_action.id}`);
          return { step: latest.data.step.id % 100, active: membership.currently_on_cadence };
        }),
      );
    }
    const apollo = await native(`contacts/${contact.id}`);
    return apollo.contact.contact_campaign_statuses.map((status: any) => ({ step: status.current_step_position, active: status.status === 'active' }));
  }
});
