// Preloaded with `node --import` by scripts/serve-schemas.mjs: counts the zod schemas the process
// builds, each by where it was built (the stack's frames, as `url:line`), and, as each HTTP request
// arrives, appends what was built by then to the file CRM_SANDBOX_RECORD_SCHEMAS names, as one JSON
// line: `{ "<frames>": count, … }` (the first line: what was built before the first request). zod 4 calls `globalThis.__zod_globalConfig.postProcessor`
// (internal: its hook for ahead-of-time compilation) with every instance it constructs; zod keeps the
// object it finds there, so setting it before zod loads sees every construction.
import diagnostics from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';

const log = process.env.CRM_SANDBOX_RECORD_SCHEMAS;
if (log) {
  const built = new Map();
  const framesOf = (_error, sites) => sites.map((site) => `${site.getFileName()}:${site.getLineNumber()}`).join(' ');
  globalThis.__zod_globalConfig = {
    postProcessor() {
      const { prepareStackTrace, stackTraceLimit } = Error;
      Error.prepareStackTrace = framesOf;
      Error.stackTraceLimit = 40;
      const holder = {};
      Error.captureStackTrace(holder);
      const frames = holder.stack;
      Error.prepareStackTrace = prepareStackTrace;
      Error.stackTraceLimit = stackTraceLimit;
      built.set(frames, (built.get(frames) ?? 0) + 1);
    },
  };
  diagnostics.subscribe('http.server.request.start', () => appendFileSync(log, `${JSON.stringify(Object.fromEntries(built))}\n`));
}
