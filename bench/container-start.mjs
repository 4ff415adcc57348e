// Container start: spawn → first 200 of /sandbox/health, of `podman run` of the image (published
// on a loopback port) against `crm-sandbox serve --port 0 --quiet` on the host; alternating, the
// median counts; target: the container within 1.5x of the host. Not in run.mjs: it needs podman
// and the image, which `.ci/container` builds (as root; it keeps the image unless told otherwise):
//
//   KEEP_IMAGES=1 .ci/container && node bench/container-start.mjs [--rounds=5] [--image=NAME]
//
// The host side runs the node that runs this script; run it with the image's Node major
// (`npx -y -p node@22 -c 'node bench/container-start.mjs'`) to compare like with like.
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { firstOk } from './cold-start.mjs';
import { freePort } from './lib/http.mjs';
import { fmt, median, row, table } from './lib/report.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const image = option('image', 'localhost/crm-sandbox-ci/crm-sandbox:latest');
const rounds = Number(option('rounds', '5'));
const CLI = fileURLToPath(new URL('../bin/crm-sandbox.js', import.meta.url));
// The machine's podman settings (runc, cgroupfs, ulimits) unless the caller gives its own.
process.env.CONTAINERS_CONF ??= fileURLToPath(new URL('../test/container/containers.conf', import.meta.url));

const nodeInImage = execFileSync('podman', ['run', '--rm', '--no-healthcheck', '--entrypoint', 'node', image, '--version'], { encoding: 'utf8' }).trim();
console.log(`image ${image} (node ${nodeInImage}); host node ${process.version}; ${rounds} rounds\n`);

/** Spawn → the first line on stdout, in ms (the command then runs to its end). */
async function firstLine(argv) {
  const started = performance.now();
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const ms = performance.now() - started;
  await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
  return ms;
}

const host = [];
const container = [];
const runtime = [];
for (let i = 0; i < rounds; i++) {
  host.push((await firstOk([process.execPath, CLI, 'serve', '--port', '0', '--quiet'], '/sandbox/health')).ms);
  // --no-healthcheck: without systemd podman cannot schedule the image's HEALTHCHECK and says so
  // on every start; --rm and podman's signal proxy stop and remove it when firstOk sends SIGTERM.
  // No state file: the host's serve has none either; a tmpfs on /data, so that no anonymous
  // volume outlives the container (podman's --rm leaves it when the run is ended by a signal).
  const run = (port) => [
    'podman',
    'run',
    '--rm',
    '--no-healthcheck',
    '-p',
    `127.0.0.1:${port}:4010`,
    '--tmpfs',
    '/data',
    '-e',
    'CRM_SANDBOX_QUIET=true',
    '-e',
    'CRM_SANDBOX_STATE_FILE=',
  ];
  const port = await freePort();
  container.push((await firstOk([...run(port), image], '/sandbox/health', { reach: () => `http://127.0.0.1:${port}` })).ms);
  // The same container start with /bin/echo for the server: what podman itself takes here.
  runtime.push(await firstLine([...run(await freePort()), '--entrypoint', '/bin/echo', image, 'started']));
  console.log(`  round ${i + 1}: host ${fmt(host.at(-1))} ms, container ${fmt(container.at(-1))} ms, podman's own start ${fmt(runtime.at(-1))} ms`);
}
const ms = median(container);
const hostMs = median(host);
const runtimeMs = median(runtime);
row({
  workload: 'container start (podman run), spawn → first 200',
  sandbox: `${fmt(ms)} ms`,
  baseline: `${fmt(hostMs)} ms (serve on the host)`,
  ratio: ms / hostMs,
  target: '<= 1.5x',
  pass: (r) => r <= 1.5,
});
row({
  workload: "podman's own start (the same run, /bin/echo for the server): spawn → its output",
  sandbox: `${fmt(runtimeMs)} ms`,
  baseline: `${fmt(hostMs)} ms (serve on the host)`,
  ratio: runtimeMs / hostMs,
  target: '',
});
console.log(`\n${table()}`);
