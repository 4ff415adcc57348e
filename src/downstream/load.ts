import type * as Downstream from './index.js';

let loading: Promise<typeof Downstream> | undefined;
let loaded: typeof Downstream | undefined;

/**
 * The simulated systems (seven CRMs' native APIs, most of the core's code), loaded by the first
 * call that needs one — a passthrough call or an `allFields` page — so `serve` starts without
 * parsing them. Bundlers make this import a chunk of its own.
 */
export function loadDownstream(): Promise<typeof Downstream> {
  return (loading ??= import('./index.js').then((module) => (loaded = module)));
}

/** The simulated systems if {@link loadDownstream} has loaded them, else undefined: a route answers without waiting a turn. */
export function loadedDownstream(): typeof Downstream | undefined {
  return loaded;
}
