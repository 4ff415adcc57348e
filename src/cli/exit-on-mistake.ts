import { SandboxConfigError } from '../shared/errors.js';

/**
 * Ends the process with exit code 2 and one line on stderr when `error` is the user's to fix: a
 * value the sandbox refused (SandboxConfigError), a scenario that does not hold, an address it
 * cannot listen on. Returns for anything else, which the caller throws on (a bug: its stack shows).
 */
export function exitOnUsersMistake(error: unknown): void {
  // A ScenarioError is matched by name: its module is loaded only when a scenario command runs.
  if (error instanceof SandboxConfigError || (error as Error)?.name === 'ScenarioError') {
    console.error(`crm-sandbox: ${(error as Error).message}`);
    process.exit(2);
  }
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    console.error(`crm-sandbox: cannot listen: ${(error as Error).message}`);
    process.exit(2);
  }
}
