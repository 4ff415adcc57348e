import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script, without types
import { check } from '../../scripts/build-binaries.mjs';
// @ts-expect-error: a plain script, without types
import { inspectExecutable } from '../../scripts/executables.mjs';
import { binaryPath, FOLDER, TARGETS } from './binaries.js';

/**
 * Every binary built is an executable of its platform, read as its loader reads it (the ELF,
 * Mach-O or PE headers; scripts/executables.mjs): the right CPU, the single-executable blob where
 * the format keeps it with the CLI inside, and the fuse that makes Node run it; SHA256SUMS names
 * each with its hash. The macOS and Windows binaries cannot run here: this is what can be known
 * of them without their platform.
 */
const EXPECTED: Record<string, { format: string; arch: string; detail: RegExp }> = {
  'linux-x64': { format: 'elf', arch: 'x64', detail: /interpreter \/lib64\/ld-linux-x86-64\.so\.2/ },
  'linux-arm64': { format: 'elf', arch: 'arm64', detail: /interpreter \/lib\/ld-linux-aarch64\.so\.1/ },
  'darwin-x64': { format: 'macho', arch: 'x64', detail: /entry point \(LC_MAIN\)/ },
  'darwin-arm64': { format: 'macho', arch: 'arm64', detail: /entry point \(LC_MAIN\)/ },
  'win-x64': { format: 'pe', arch: 'x64', detail: /PE32\+ console executable/ },
};

describe.each(TARGETS)('the %s binary', (target) => {
  it('is an executable of its platform and CPU, carrying the CLI in its blob, its fuse set', () => {
    const path = binaryPath(target);
    expect(existsSync(path), `${path}: run npm run build:binaries -- --target ${target}`).toBe(true);
    const bytes = readFileSync(path);
    const found = check(target, bytes);
    expect(found).toMatchObject({ format: EXPECTED[target]!.format, arch: EXPECTED[target]!.arch, fuse: true });
    expect(found.details.join('; ')).toMatch(EXPECTED[target]!.detail);
    // macOS refuses an arm64 binary without a signature: none is made here (docs/binaries.md says how to sign).
    if (found.format === 'macho') expect(found.signed).toBe(false);
    const sums = readFileSync(join(FOLDER, 'SHA256SUMS'), 'utf8');
    expect(sums).toContain(`${createHash('sha256').update(bytes).digest('hex')}  ${basename(path)}\n`);
  });
});

describe('the check itself', () => {
  it('refuses what is not such an executable: another platform, no blob, a cut file', () => {
    const [first] = TARGETS;
    const bytes = readFileSync(binaryPath(first!));
    const other = Object.keys(EXPECTED).find((target) => EXPECTED[target]!.format !== EXPECTED[first!]!.format)!;
    expect(() => check(other, bytes)).toThrow(new RegExp(`^${other}: the binary is a ${EXPECTED[first!]!.format} ${EXPECTED[first!]!.arch} executable, not `));
    expect(() => check('linux-x64', readFileSync(process.execPath))).toThrow(/carries no single-executable blob; its fuse is not set/);
    expect(() => inspectExecutable(Buffer.from('#!/bin/sh\necho hi\n'))).toThrow(/not an ELF, Mach-O or PE/);
    expect(() => inspectExecutable(bytes.subarray(0, 4096))).toThrow(/points outside the file/);
  });
});
