/**
 * How long the end of a run (and a `wait: deliveries` step) lets sandbox time pass for
 * deliveries to finish, unless told: past the default retry schedule (20 h 47 min). Its own
 * module, so the CLI can show it without loading the engine.
 */
export const DEFAULT_MAX_WAIT = '25h';
