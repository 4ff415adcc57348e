/**
 * How long the run lets sandbox time pass for an expectation or for its deliveries at the end,
 * unless told (`--max-wait`), when time jumps (an instant run): past the default retry schedule
 * (20 h 47 min), which then costs milliseconds. Its own module, so the CLI can show it without
 * loading the engine.
 */
export const DEFAULT_MAX_WAIT = '25h';

/**
 * The same bound when time passes for real (realtime and factor speeds, `--server`, a sandbox on
 * a real clock): minutes, not the hours a retry schedule takes, so a run against a receiver that
 * keeps rejecting ends soon with a report.
 */
export const DEFAULT_REAL_MAX_WAIT = '5m';

/** How long a CLI run may take in all, in real time, before it stops and reports (`--timeout`). */
export const DEFAULT_RUN_TIMEOUT = '10m';
