// V8's young generation held as `crm-sandbox serve` holds it (bin/crm-sandbox.js, docs/decisions/0039): the
// semi-spaces' growth factor set to 1. Imported first by the bench's servers, the sandbox and its baselines alike (the
// ceiling, the delivery loop), so that every ratio compares the same runtime. Set at once, not on the first turn as
// the bin does (for its start-up): these processes build their data set before they listen.
import v8 from 'node:v8';

v8.setFlagsFromString('--semi-space-growth-factor=1');
