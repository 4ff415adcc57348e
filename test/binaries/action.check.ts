import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ActionJob } from '../helpers/action-runner.js';
import { parseJunit } from '../helpers/junit.js';
import { SpecReceiver } from '../helpers/spec-receiver.js';
import { binaryPath, pathWithoutNode, ROOT } from './binaries.js';

/**
 * The GitHub Action (action.yml) on a Linux x64 runner with no node, its binary beside it
 * (dist-bin/crm-sandbox-linux-x64, as a release of the action carries it): it finds the binary for
 * the runner, starts it, waits for health, prints its outputs, then plays receiver-check on it with
 * a JUnit report. test/action.test.ts runs the same action through `binary` and npx.
 */
const TOKEN = `access_${'0123456789abcdef'.repeat(3).slice(0, 40)}`;
const job = new ActionJob(
  ROOT,
  { os: 'Linux', arch: 'X64' },
  { PATH: pathWithoutNode(['bash', 'sh', 'curl', 'sed', 'head', 'cat', 'tee', 'sleep', 'basename', 'uname']) },
);
const receiver = new SpecReceiver([], { toleranceSeconds: 300 });
receiver.accessToken = TOKEN;

afterAll(async () => {
  if (existsSync(join(job.temp, 'crm-sandbox.pid'))) job.stopServer();
  await receiver.stop();
});

describe('the action with the linux-x64 binary beside it, no node on PATH', () => {
  it('starts the binary for the runner and prints its outputs; a scenario on it writes its JUnit report', async () => {
    expect(existsSync(binaryPath('linux-x64'))).toBe(true);
    await receiver.start();
    const start = await job.use({ port: '0' }, job.temp);
    expect(start.failed, start.failed && `${start.failed.stdout}${start.failed.stderr}`).toBeUndefined();
    expect(start.steps[0]!.stdout).toContain(`starting ${binaryPath('linux-x64')} serve`);
    expect(start.outputs).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), 'api-key': 'sandbox-api-key' });
    expect((await fetch(`${start.outputs.url}/sandbox/health`)).status).toBe(200);

    const run = await job.use({ scenario: 'receiver-check', 'webhook-url': receiver.url, 'access-token': TOKEN }, job.temp);
    expect(run.failed, run.failed && `${run.failed.stdout}${run.failed.stderr}`).toBeUndefined();
    const [suite] = parseJunit(readFileSync(join(job.temp, run.outputs.report!), 'utf8')).testsuites[0]!.testsuite;
    expect(suite).toMatchObject({ name: 'crm-sandbox scenario receiver-check', tests: '8', failures: '0' });
  });
});
