import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { BridgedCall } from '../../helpers/sdk-bridge.js';
import responses from './responses.json' with { type: 'json' };

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * Checks a Pipedrive answer carried by the SDK bridge against the schema Pipedrive's published
 * OpenAPI document gives for the operation and status (responses.json, derived by derive.mjs).
 * Paths under `api/v1/`, `v1/` and `api/v2/` name the v1 and v2 operations. Operations the
 * documents no longer describe (v1 persons, organizations, deals, activities: removed from the
 * v1 document when v2 replaced them) are checked by the SDK-model tests instead and pass here.
 */
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const operations = responses.operations as Record<string, Record<string, object>>;
const templates = Object.keys(operations).map((key) => {
  const [version, method, template] = key.split(' ') as [string, string, string];
  return { key, version, method, regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`) };
});
const compiled = new Map<object, ReturnType<Ajv2020['compile']>>();

/** The operation a call names, as `v2 GET /persons/{id}`, or undefined. */
export function pipedriveOperation(method: string, path: string): string | undefined {
  const m = /^(?:api\/)?(v[12])(\/.*)$/.exec(path);
  if (!m) return undefined;
  return templates.find((entry) => entry.version === m[1] && entry.method === method && entry.regex.test(m[2]!))?.key;
}

/** One line per violation; none when the answer fits (or the operation is not in the documents). */
export function checkPipedriveAnswer(call: BridgedCall): string[] {
  const key = pipedriveOperation(call.request.method, call.request.path);
  if (!key || call.status !== 200) return [];
  const { statusCode, body } = call.answer as { statusCode: number; body: any };
  const byStatus = operations[key]!;
  const schema = byStatus[String(statusCode)] ?? byStatus[`${String(statusCode)[0]}XX`] ?? byStatus.default;
  // The documents give most operations no error answers: an error is Pipedrive's common envelope.
  if (!schema && statusCode >= 400)
    return body?.success === false && typeof body.error === 'string' ? [] : [`${key} → ${statusCode}: not Pipedrive's error envelope`];
  if (!schema) return [`${key} → ${statusCode}: status not documented (${Object.keys(byStatus).join(', ')})`];
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate(body) ? [] : [`${key} → ${statusCode}: ${ajv.errorsText(validate.errors)}`];
}
