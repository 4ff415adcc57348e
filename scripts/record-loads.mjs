// Preloaded with `node --import` by scripts/serve-loads.mjs: appends the URL of every module the
// process loads (ES imports, dynamic ones too, and require) to the file CRM_SANDBOX_RECORD_LOADS
// names, one a line, as it is loaded; and, when the first HTTP request arrives, the built-in
// modules loaded by then (`builtins: crypto,http,…`: process.getBuiltinModule passes no hook).
import diagnostics from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import module from 'node:module';

const log = process.env.CRM_SANDBOX_RECORD_LOADS;
if (log) {
  const first = () => {
    diagnostics.unsubscribe('http.server.request.start', first);
    const builtins = process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice('NativeModule '.length));
    appendFileSync(log, `builtins: ${builtins.join(',')}\n`);
  };
  diagnostics.subscribe('http.server.request.start', first);
}
if (log && module.registerHooks) {
  module.registerHooks({
    load(url, context, nextLoad) {
      appendFileSync(log, `${url}\n`);
      return nextLoad(url, context);
    },
  });
} else if (log) {
  // Node before 22.15: the asynchronous hooks, in a thread of their own.
  module.register('./record-loads-hooks.mjs', import.meta.url);
}
