// Preload of the `serve` that scripts/startup-hints.mjs watches (started with NODE_V8_COVERAGE):
// writes V8's coverage as the first response goes out, so the functions that file counts are those
// that ran before `serve` first answered (Node writes another as the process exits). Writes `taken`
// to the file named by CRM_SANDBOX_RECORD_COVERAGE once that coverage is on disk.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { takeCoverage } from 'node:v8';

const CHANNEL = 'http.server.response.finish';
function onFirstAnswer() {
  unsubscribe(CHANNEL, onFirstAnswer);
  takeCoverage();
  writeFileSync(process.env.CRM_SANDBOX_RECORD_COVERAGE, 'taken');
}
subscribe(CHANNEL, onFirstAnswer);
