import { readFileSync } from 'node:fs';
import { SandboxConfigError } from '../shared/errors.js';
import { flagName } from './flags.js';

/** The PEM text of `--webhook-ca`; a file that cannot be read is a bad option (exit 2). */
export function readCa(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new SandboxConfigError(`${flagName('webhook-ca')}: cannot read ${path}: ${(error as Error).message}`);
  }
}
