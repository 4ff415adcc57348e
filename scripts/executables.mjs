// Reads a single executable's headers as its platform's loader would, without running it: the
// format (ELF, Mach-O, PE), the CPU it is for, and where its single-executable blob is, found
// through the format's own structures (an ELF note NODE_SEA_BLOB, the Mach-O section
// NODE_SEA,__NODE_SEA_BLOB, the PE resource NODE_SEA_BLOB), not by searching the bytes. Used by
// scripts/build-binaries.mjs after each build, and by test/binaries/ on binaries it cannot run
// here (macOS, Windows).
//
//   inspectExecutable(readFileSync('dist-bin/crm-sandbox-darwin-arm64'))
//   → { format: 'macho', arch: 'arm64', blob: Buffer, fuse: true, signed: false, details: [...] }
import { readFileSync } from 'node:fs';

/** Node's fuse: the single-executable loader runs the blob only when this string ends in :1. */
export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** The first four bytes of a single-executable blob (little-endian 0x0143da20: src/node_sea.h's kMagic). */
export const SEA_MAGIC = 0x0143da20;

const ELF_MACHINES = { 62: 'x64', 183: 'arm64' };
const MACHO_CPUS = { 16777223: 'x64', 16777228: 'arm64' };
const PE_MACHINES = { 34404: 'x64', 43620: 'arm64' };

/**
 * The executable's format, CPU and single-executable blob (or null when it carries none).
 * Throws when the bytes are no 64-bit little-endian ELF, Mach-O or PE image, or when its
 * structures point outside the file.
 *
 * @param {Buffer} bytes
 * @returns {{ format: 'elf' | 'macho' | 'pe', arch: string, blob: Buffer | null, fuse: boolean, signed: boolean, details: string[] }}
 */
export function inspectExecutable(bytes) {
  const fuse = bytes.includes(`${SEA_FUSE}:1`);
  if (bytes.readUInt32BE(0) === 0x7f454c46) return { ...elf(bytes), fuse };
  if (bytes.readUInt32LE(0) === 0xfeedfacf) return { ...macho(bytes), fuse };
  if (bytes.toString('latin1', 0, 2) === 'MZ') return { ...pe(bytes), fuse };
  throw new Error('not an ELF, Mach-O or PE executable');
}

/** inspectExecutable of a file. */
export function inspectFile(path) {
  return inspectExecutable(readFileSync(path));
}

/** A slice that must lie within the file. */
function within(bytes, offset, length, what) {
  if (offset < 0 || length < 0 || offset + length > bytes.length) throw new Error(`${what} points outside the file (${offset}+${length} of ${bytes.length})`);
  return bytes.subarray(offset, offset + length);
}

const cString = (bytes) => bytes.toString('latin1').replace(/\0.*$/s, '');

function elf(bytes) {
  if (bytes[4] !== 2 || bytes[5] !== 1) throw new Error('ELF: not 64-bit little-endian');
  const type = bytes.readUInt16LE(16);
  const arch = ELF_MACHINES[bytes.readUInt16LE(18)] ?? `machine ${bytes.readUInt16LE(18)}`;
  const phoff = Number(bytes.readBigUInt64LE(32));
  const phentsize = bytes.readUInt16LE(54);
  const phnum = bytes.readUInt16LE(56);
  const details = [`ELF ${type === 2 ? 'executable' : type === 3 ? 'shared object (PIE)' : `type ${type}`}`];
  let blob = null;
  let interpreter = null;
  for (let i = 0; i < phnum; i++) {
    const header = within(bytes, phoff + i * phentsize, phentsize, 'ELF program header');
    const kind = header.readUInt32LE(0);
    const offset = Number(header.readBigUInt64LE(8));
    const size = Number(header.readBigUInt64LE(32));
    if (kind === 3) interpreter = cString(within(bytes, offset, size, 'ELF interpreter'));
    if (kind !== 4) continue; // PT_NOTE
    const notes = within(bytes, offset, size, 'ELF note segment');
    for (let at = 0; at + 12 <= notes.length; ) {
      const nameSize = notes.readUInt32LE(at);
      const descSize = notes.readUInt32LE(at + 4);
      const name = cString(within(notes, at + 12, nameSize, 'ELF note name'));
      const descAt = at + 12 + align4(nameSize);
      if (name === 'NODE_SEA_BLOB') blob = within(notes, descAt, descSize, 'ELF note NODE_SEA_BLOB');
      at = descAt + align4(descSize);
    }
  }
  if (interpreter) details.push(`interpreter ${interpreter}`);
  return { format: 'elf', arch, blob, signed: false, details };
}

const align4 = (n) => (n + 3) & ~3;

function macho(bytes) {
  const arch = MACHO_CPUS[bytes.readUInt32LE(4)] ?? `cputype 0x${bytes.readUInt32LE(4).toString(16)}`;
  const fileType = bytes.readUInt32LE(12);
  const commands = bytes.readUInt32LE(16);
  const details = [`Mach-O ${fileType === 2 ? 'executable' : `filetype ${fileType}`}`];
  let blob = null;
  let signed = false;
  let entry = false;
  let at = 32;
  for (let i = 0; i < commands; i++) {
    const command = within(bytes, at, 8, 'Mach-O load command').readUInt32LE(0);
    const size = bytes.readUInt32LE(at + 4);
    const body = within(bytes, at, size, 'Mach-O load command');
    if (command === 0x80000028) entry = true; // LC_MAIN
    if (command === 0x1d) signed = true; // LC_CODE_SIGNATURE
    if (command === 0x19) {
      // LC_SEGMENT_64: its sections follow the 72-byte command, 80 bytes each.
      const segment = cString(body.subarray(8, 24));
      const sections = body.readUInt32LE(64);
      for (let s = 0; s < sections; s++) {
        const section = body.subarray(72 + s * 80, 72 + (s + 1) * 80);
        if (segment === 'NODE_SEA' && cString(section.subarray(0, 16)) === '__NODE_SEA_BLOB') {
          blob = within(bytes, section.readUInt32LE(48), Number(section.readBigUInt64LE(40)), 'Mach-O section __NODE_SEA_BLOB');
        }
      }
    }
    at += size;
  }
  if (entry) details.push('entry point (LC_MAIN)');
  details.push(signed ? 'code signature present (invalid after injection: sign again)' : 'unsigned');
  return { format: 'macho', arch, blob, signed, details };
}

function pe(bytes) {
  const header = bytes.readUInt32LE(0x3c);
  if (within(bytes, header, 4, 'PE header').toString('latin1') !== 'PE\0\0') throw new Error('PE: no PE signature where the MZ header points');
  const machine = bytes.readUInt16LE(header + 4);
  const arch = PE_MACHINES[machine] ?? `machine 0x${machine.toString(16)}`;
  const sectionCount = bytes.readUInt16LE(header + 6);
  const optionalSize = bytes.readUInt16LE(header + 20);
  const optional = header + 24;
  if (bytes.readUInt16LE(optional) !== 0x20b) throw new Error('PE: not PE32+ (64-bit)');
  const subsystem = bytes.readUInt16LE(optional + 68);
  const details = [`PE32+ ${subsystem === 3 ? 'console' : `subsystem ${subsystem}`} executable`];
  const sections = [];
  for (let i = 0; i < sectionCount; i++) {
    const section = within(bytes, optional + optionalSize + i * 40, 40, 'PE section header');
    sections.push({ rva: section.readUInt32LE(12), size: section.readUInt32LE(8), raw: section.readUInt32LE(20) });
  }
  const fileOffset = (rva) => {
    const section = sections.find((item) => rva >= item.rva && rva < item.rva + item.size);
    if (!section) throw new Error(`PE: RVA 0x${rva.toString(16)} is in no section`);
    return section.raw + (rva - section.rva);
  };
  // The resource directory (data directory 2): type → name → language → data.
  const resources = bytes.readUInt32LE(optional + 112 + 2 * 8);
  let blob = null;
  if (resources !== 0) {
    const root = fileOffset(resources);
    const entries = (dir) => {
      const named = bytes.readUInt16LE(dir + 12);
      const ids = bytes.readUInt16LE(dir + 14);
      return Array.from({ length: named + ids }, (_, i) => {
        const name = bytes.readUInt32LE(dir + 16 + i * 8);
        const target = bytes.readUInt32LE(dir + 20 + i * 8);
        const text =
          name & 0x80000000
            ? within(bytes, root + (name & 0x7fffffff) + 2, bytes.readUInt16LE(root + (name & 0x7fffffff)) * 2, 'PE resource name').toString('utf16le')
            : null;
        return { text, target };
      });
    };
    for (const type of entries(root)) {
      if (!(type.target & 0x80000000)) continue;
      for (const name of entries(root + (type.target & 0x7fffffff))) {
        if (name.text !== 'NODE_SEA_BLOB' || !(name.target & 0x80000000)) continue;
        const [language] = entries(root + (name.target & 0x7fffffff));
        const data = root + language.target;
        blob = within(bytes, fileOffset(bytes.readUInt32LE(data)), bytes.readUInt32LE(data + 4), 'PE resource NODE_SEA_BLOB');
      }
    }
  }
  return { format: 'pe', arch, blob, signed: false, details };
}
