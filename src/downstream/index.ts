// The simulated systems, as loadDownstream (./load.ts) loads them on first use: a chunk of their own.
export { nativeObjectOf } from './native-objects.js';
export { DOWNSTREAM, downstreamFor } from './systems.js';
