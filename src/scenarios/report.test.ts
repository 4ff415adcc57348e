import { describe, expect, it } from 'vitest';
import { createSandbox } from '../index.js';
import { utf8Text } from '../shared/text-codec.js';
import { runScenario } from './index.js';
import { reportJson } from './report.js';

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
});
