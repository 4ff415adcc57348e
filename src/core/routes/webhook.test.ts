import { afterEach, describe, expect, it } from 'vitest';
import { Receiver } from '../../../test/helpers/receiver.js';
import { callSandbox } from '../../../test/helpers/sandbox-call.js';
import { createSandbox, type Sandbox } from '../../index.js';
import { ApiError } from '../../shared/errors.js';

const sandboxes: Sandbox[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  for (const sandbox of sandboxes.splice(0)) sandbox.close();
  for (const receiver of receivers.splice(0)) await receiver.stop();
});

function sandbox(): Sandbox {
  const made = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
  sandboxes.push(made);
  return made;
}

/** What a call threw, as the error body the route would answer. */
function refusal(call: () => unknown) {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, body: error.toBody() };
    throw error;
  }
  throw new Error('did not throw');
}

describe('sandbox.createWebhook / deleteWebhook (the webhook routes, from code)', () => {
  it('creates the same webhook as POST /connection/webhook, and the waiting events go out to it', async () => {
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    const [byCode, byRoute] = [sandbox(), sandbox()];
    const fromCode = byCode.connect();
    const fromRoute = byRoute.connect();
    const webhook = byCode.createWebhook(fromCode.connectionId, receiver.url);
    const answer = await callSandbox(byRoute, 'POST', '/connection/webhook', {
      body: { accessToken: fromRoute.accessToken, webhook: { webhookUrl: receiver.url } },
    });
    expect(answer.status).toBe(200);
    expect(webhook).toEqual(answer.body.webhook);
    expect(webhook).toMatchObject({ connectionId: fromCode.connectionId, webhookUrl: receiver.url, webhookId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    await byCode.advance('10s');
    const delivered = byCode
      .deliveries(fromCode.connectionId)
      .map((delivery) => [(delivery.event.data as { status: string }).status, delivery.state, delivery.attempts[0]!.status]);
    expect(delivered).toEqual([
      ['NEW_CONNECTION', 'succeeded', 200],
      ['INITIAL_SYNCED', 'succeeded', 200],
      ['READY', 'succeeded', 200],
    ]);
    expect(receiver.events().map((event) => event.eventId)).toEqual(expect.arrayContaining(byCode.emittedEvents().map((event) => event.eventId)));
  });

  it('refuses what the route refuses, with the same error bodies', async () => {
    const [byCode, byRoute] = [sandbox(), sandbox()];
    const { connectionId } = byCode.connect();
    const { accessToken } = byRoute.connect();
    for (const webhookUrl of ['ftp://example.test/hook', 'not a url', '', 42]) {
      const route = await callSandbox(byRoute, 'POST', '/connection/webhook', { body: { accessToken, webhook: { webhookUrl } } });
      expect(route.status).toBe(400);
      expect(refusal(() => byCode.createWebhook(connectionId, webhookUrl as string))).toEqual({ status: route.status, body: route.body });
    }
    byCode.createWebhook(connectionId, 'http://127.0.0.1:9/hook');
    await callSandbox(byRoute, 'POST', '/connection/webhook', { body: { accessToken, webhook: { webhookUrl: 'http://127.0.0.1:9/hook' } } });
    const second = await callSandbox(byRoute, 'POST', '/connection/webhook', { body: { accessToken, webhook: { webhookUrl: 'http://127.0.0.1:9/other' } } });
    expect(second.body.errorCode).toBe('WEBHOOK_ALREADY_EXISTS');
    expect(refusal(() => byCode.createWebhook(connectionId, 'http://127.0.0.1:9/other'))).toEqual({ status: second.status, body: second.body });
    expect(refusal(() => byCode.createWebhook('0'.repeat(32), 'http://127.0.0.1:9/hook'))).toMatchObject({
      status: 404,
      body: { errorCode: 'OBJECT_NOT_FOUND' },
    });
  });

  it('deletes as DELETE /connection/webhook does: the events pending for it are dropped, a wrong id is a 404', async () => {
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    receiver.behaviour = () => 500;
    const made = sandbox();
    const { connectionId } = made.connect();
    // The first attempt fails: the event waits for its retry.
    const { webhookId } = made.createWebhook(connectionId, receiver.url);
    await made.settle();
    expect(made.deliveries(connectionId).map((delivery) => delivery.state)).toEqual(['retrying']);
    expect(refusal(() => made.deleteWebhook(connectionId, 'f'.repeat(32)))).toMatchObject({
      status: 404,
      body: { errorCode: 'OBJECT_NOT_FOUND', metadata: { field: 'webhookId' } },
    });
    made.deleteWebhook(connectionId, webhookId);
    expect(made.deliveries(connectionId).map((delivery) => [delivery.state, delivery.failureReason])).toEqual([['failed', 'webhook deleted before delivery']]);
    // A new webhook can be created afterwards, as over HTTP.
    expect(made.createWebhook(connectionId, 'http://127.0.0.1:9/again').webhookId).not.toBe(webhookId);
  });
});
