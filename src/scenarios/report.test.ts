import { describe, expect, it } from 'vitest';
import { createSandbox } from '../index.js';
import { utf8Text } from '../shared/text-codec.js';
import { runScenario } from './index.js';
import { reportJson, transcriptEvent } from './report.js';

describe('reportJson', () => {
  it('writes the very text JSON.stringify writes, and its UTF-8 bytes, whatever the report holds', async () => {
    const sandbox = createSandbox({ clock: 'virtual' });
    const report = await runScenario(sandbox, {
      description: 'a description that looks like the placeholder: "events":"\u0000events" — and é, 🚀',
      steps: [{ create: { type: 'Contact', repeat: 30, fields: { firstName: 'Zoë "${i}" \u0000' } } }, { advance: '10s' }],
    });
    sandbox.close();
    expect(report.events.length).toBeGreaterThan(30);
    const { json, encoded } = await reportJson(report);
    expect(json).toBe(JSON.stringify(report));
    expect(utf8Text(encoded)).toBe(json);
    const empty = { ...report, events: [] };
    expect((await reportJson(empty)).json).toBe(JSON.stringify(empty));
  });

  it("takes each event's body from the log's text, the very text JSON.stringify of the parsed event writes; not from a restored log's", async () => {
    const sandbox = createSandbox({ clock: 'virtual' });
    const report = await runScenario(sandbox, { steps: [{ create: { type: 'Deal', repeat: 5, fields: { name: 'Zoë "${i}" 🚀' } } }, { status: 'READY' }] });
    const { connectionId, accessToken } = report.connection;
    const parsed = sandbox.deliveries(connectionId).map((delivery) => transcriptEvent(delivery, accessToken));
    expect(parsed.length).toBeGreaterThan(5);
    expect(JSON.stringify(report.events)).toBe(JSON.stringify(parsed));
    const first = report.events[0]!.eventId;
    expect(sandbox.parts.dispatcher.eventJson(first)).toBe(report.events[0]!.body);
    const copy = createSandbox({ clock: 'virtual' });
    copy.restore(sandbox.snapshot());
    expect(copy.parts.dispatcher.eventJson(first)).toBeUndefined();
    expect(JSON.stringify(copy.deliveries(connectionId).map((delivery) => transcriptEvent(delivery, accessToken)))).toBe(JSON.stringify(parsed));
    sandbox.close();
    copy.close();
  });
});
