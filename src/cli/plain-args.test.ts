import { afterEach, describe, expect, it, vi } from 'vitest';
import { camelName, setCommandLine } from './flags.js';
import { readPlainArgs } from './plain-args.js';
import { SERVE_OPTIONS } from './serve.js';

// What yargs hands serve's handler, caught here instead of starting a server.
const handed = vi.hoisted(() => ({ args: undefined as Record<string, unknown> | undefined }));
vi.mock('./serve.js', async (original) => {
  const serve = await original<typeof import('./serve.js')>();
  return {
    ...serve,
    serveCommand: {
      ...serve.serveCommand,
      handler: (args: Record<string, unknown>) => {
        handed.args = args;
      },
    },
  };
});
const { runWithYargs } = await import('./yargs-cli.js');

afterEach(() => {
  setCommandLine([], {});
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

/** What yargs reads from the command line (with CRM_SANDBOX_* variables), or 'refused' when it reports a mistake. */
async function readByYargs(args: string[], env: Record<string, string>): Promise<Record<string, unknown> | 'refused'> {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  setCommandLine(args, process.env);
  vi.spyOn(console, 'error').mockImplementation(() => {});
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(process, 'exit').mockImplementation(() => {
    throw new Error('exit');
  });
  handed.args = undefined;
  try {
    await runWithYargs(args);
  } catch {
    return 'refused';
  } finally {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  }
  return handed.args ?? 'refused';
}

function readPlainly(args: string[], env: Record<string, string>): Record<string, unknown> | undefined {
  setCommandLine(args, env);
  return readPlainArgs(args, 'serve', SERVE_OPTIONS, env);
}

/** The options as serve's handler reads them (camelCase). */
const asHandlerReads = (args: Record<string, unknown>) =>
  Object.fromEntries(Object.keys(SERVE_OPTIONS).map((name) => [camelName(name), args[camelName(name)]]));

/** Values to try: good and bad ones for every option, and texts yargs reads its own way. */
const VALUES = [
  ...['0', '4010', '65536', '-1', '+7', '1e3', 'abc', '', ' ', '3s', '500ms', '10', '0ms', 'none', '1', '0.5', '2', '.5'],
  ...['k1', 'k1,k2', ',', ' k1 ', '"q"', "'q'", 'true', 'false', 'yes', '1s,2s', '1s,,2s', '10s,1m,5m'],
  ...['duplicate=0.2', 'delay=100ms-2s,reorder', 'outage=5m', 'bogus=1', '200ms', '50ms-400ms', '400ms-50ms', '100/min', '5/s', '100'],
  ...['batched', 'always', 'sometimes', '127.0.0.1', '0.0.0.0', 'localhost', '*', 'crm-sandbox', 'bad host!', 'fixtures', 'a=b'],
];
const NAMES = [...Object.keys(SERVE_OPTIONS), 'prot', 'no-quiet', 'no-fixtures', 'readyDelay', 'help', 'version', 'state'];
const ENVIRONMENTS: Record<string, string>[] = [
  {},
  { CRM_SANDBOX_PORT: '0' },
  { CRM_SANDBOX_QUIET: '1' },
  { CRM_SANDBOX_QUIET: 'maybe' },
  { CRM_SANDBOX_SEEDED_TOKENS: 'no' },
  { CRM_SANDBOX_API_KEY: 'k1,k2' },
  { CRM_SANDBOX_READY_DELAY: '1s' },
  { CRM_SANDBOX_READY_DELAY: '10' },
  { CRM_SANDBOX_STATE_FILE: '' },
  { CRM_SANDBOX_HOST: '0.0.0.0', CRM_SANDBOX_ALLOWED_HOST: 'crm-sandbox' },
  { CRM_SANDBOX_RECORD_LOADS: '/tmp/x' },
  { CRM_SANDBOX_INTEGRATION: 'hubspot' },
  { CRM_SANDBOX_HELP: 'true' },
  { CRM_SANDBOX_FAULTS__LATENCY: '1s' },
];

/** A deterministic stream of numbers in [0, 1) (a linear congruential generator). */
function draws(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Command lines of 0–4 options in every form (`--a v`, `--a=v`, bare `--a`), with stray words now and then. */
function commandLines(count: number): string[][] {
  const draw = draws(30);
  const pick = <T>(items: readonly T[]) => items[Math.floor(draw() * items.length)]!;
  const lines: string[][] = [];
  for (let i = 0; i < count; i++) {
    const line = ['serve'];
    const options = Math.floor(draw() * 5);
    for (let j = 0; j < options; j++) {
      const name = pick(NAMES);
      const form = draw();
      if (form < 0.5) line.push(`--${name}`, pick(VALUES));
      else if (form < 0.8) line.push(`--${name}=${pick(VALUES)}`);
      else line.push(`--${name}`);
      if (draw() < 0.03) line.push(pick(['extra', '-h', '--', '-p']));
    }
    lines.push(line);
  }
  return lines;
}

describe('serve read without yargs', () => {
  it('reads the plain command lines users give as yargs does', async () => {
    const lines = [
      ['serve'],
      ['serve', '--port', '0', '--quiet'],
      ['serve', '--port=0', '--api-key', 'k1', '--api-key', 'k2', '--seed', '7'],
      ['serve', '--initial-sync-delay', '500ms', '--ready-delay', '1s', '--retry-schedule', '1s,2s'],
      ['serve', '--state-file', '.crm-sandbox.json', '--state-sync', 'always'],
      ['serve', '--latency', '50ms-400ms', '--error-rate', '0.05', '--rate-limit', '100/min'],
      ['serve', '--host', '0.0.0.0', '--allowed-host', 'crm-sandbox', '--client-check', '--seeded-tokens', '--email-events'],
      ['serve', '--fixtures', 'fixtures', '--delivery-chaos', 'duplicate=0.2,delay=100ms-2s,reorder', '--record-limit', 'none'],
    ];
    for (const args of lines) {
      const plain = readPlainly(args, {});
      expect(plain, args.join(' ')).toBeDefined();
      expect(asHandlerReads(plain!), args.join(' ')).toEqual(asHandlerReads((await readByYargs(args, {})) as Record<string, unknown>));
    }
    const plain = readPlainly(['serve', '--port', '0', '--seed', '7', '--retry-schedule', ''], { CRM_SANDBOX_QUIET: 'yes', CRM_SANDBOX_API_KEY: 'a,b' });
    expect(plain).toMatchObject({ port: 0, seed: 7, retrySchedule: [], quiet: true, apiKey: ['a', 'b'], readyDelay: 10_000, host: '127.0.0.1' });
  });

  it('leaves to yargs what yargs reads its own way: help, version, short flags, negations, positionals, quoted values, and refused values', () => {
    for (const args of [
      ['serve', '--help'],
      ['serve', '-h'],
      ['serve', '--version'],
      ['serve', '--no-fixtures'],
      ['serve', '--quiet=false'],
      ['serve', '--quiet', 'false'],
      ['serve', 'extra'],
      ['serve', '--port', '0', '--'],
      ['serve', '--prot', '0'],
      ['serve', '--readyDelay', '1s'],
      ['serve', '--port', '-1'],
      ['serve', '--port', '70000'],
      ['serve', '--port'],
      ['serve', '--api-key', 'k1', 'k2'],
      ['serve', '--seed', '1', '--seed', '2'],
      ['serve', '--host', '"0.0.0.0"'],
      ['serve', '--state-sync', 'sometimes'],
      ['serve', '--host', ''],
      ['scenario', 'list'],
      [],
    ]) {
      expect(readPlainly(args, {}), args.join(' ')).toBeUndefined();
    }
    expect(readPlainly(['serve'], { CRM_SANDBOX_QUIET: 'maybe' })).toBeUndefined();
    expect(readPlainly(['serve'], { CRM_SANDBOX_HELP: '1' })).toBeUndefined();
    expect(readPlainly(['serve'], { CRM_SANDBOX_A__B: '1' })).toBeUndefined();
  });

  it('reads 3,000 drawn command lines and environments as yargs does, or leaves them to it', async () => {
    let read = 0;
    const lines = commandLines(3000);
    for (const [index, args] of lines.entries()) {
      const env = ENVIRONMENTS[index % ENVIRONMENTS.length]!;
      const plain = readPlainly(args, env);
      if (plain === undefined) continue;
      read++;
      const yargs = await readByYargs(args, env);
      expect(yargs, `${args.join(' ')} with ${JSON.stringify(env)}: yargs refuses what was read plainly`).not.toBe('refused');
      expect(asHandlerReads(plain), `${args.join(' ')} with ${JSON.stringify(env)}`).toEqual(asHandlerReads(yargs as Record<string, unknown>));
    }
    // Enough of them are read plainly for the comparison to mean something.
    expect(read).toBeGreaterThan(300);
  });
});
