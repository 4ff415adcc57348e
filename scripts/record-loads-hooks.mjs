// The loader hook of scripts/record-loads.mjs (it runs in the hooks thread).
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  if (process.env.CRM_SANDBOX_RECORD_LOADS) appendFileSync(process.env.CRM_SANDBOX_RECORD_LOADS, `${url}\n`);
  return nextLoad(url, context);
}
