import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { SandboxRequest, SandboxResponse } from '../../src/core/http.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** One request and what the sandbox answered, as recorded from the traffic. */
export interface Exchange {
  request: SandboxRequest;
  response: SandboxResponse;
}

/**
 * Checks answers against an OpenAPI document, independently of how it was built: the
 * operation is found by path template and method, the status must be documented for it
 * (exactly, or by a `4XX`/`5XX` range), and the JSON body must conform to the documented
 * schema (ajv, JSON Schema 2020-12, formats checked); a request answered 2xx must have sent a
 * body its requestBody schema allows. Returns one line per violation.
 */
export function openApiChecker(document: any): ((exchange: Exchange) => string[]) & { covered: Set<string> } {
  const covered = new Set<string>();
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi.json');
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    regex: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    literal: template.split('/').filter((part) => !part.startsWith('{')).length,
  }));
  const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
  const errorBody = ajv.getSchema('openapi.json#/components/schemas/ErrorBody')!;

  const check = ({ request, response }: Exchange): string[] => {
    const label = `${request.method} ${request.path} → ${response.status}`;
    const method = request.method.toUpperCase() === 'HEAD' ? 'get' : request.method.toLowerCase();
    const body = response.body === '' ? undefined : JSON.parse(response.body);
    // Static paths win over templates, as in the router; repeated slashes are one, as the sandbox reads them.
    const path = request.path.replace(/\/{2,}/g, '/');
    const match = templates.filter((entry) => entry.regex.test(path)).sort((a, b) => b.literal - a.literal)[0];
    const operation = match && document.paths[match.template][method];
    if (!operation) {
      // No such operation: the document says a 404 or a 405 with the error body.
      if (![404, 405].includes(response.status)) return [`${label}: no operation, yet not a 404/405`];
      return body === undefined || errorBody(body) ? [] : [`${label}: ${ajv.errorsText(errorBody.errors)}`];
    }
    covered.add(`${method.toUpperCase()} ${match!.template}`);
    const status = String(response.status);
    const key = status in operation.responses ? status : `${status[0]}XX` in operation.responses ? `${status[0]}XX` : undefined;
    if (!key) return [`${label}: status not documented for ${method.toUpperCase()} ${match!.template}`];
    // A request the sandbox accepted must be one the document allows: its JSON body conforms to the requestBody schema.
    if (/^2/.test(status) && operation.requestBody && request.body) {
      const validateRequest = ajv.getSchema(
        `openapi.json#/${pointer('paths', match!.template, method, 'requestBody', 'content', 'application/json', 'schema')}`,
      )!;
      if (!validateRequest(JSON.parse(request.body)))
        return [`${label}: accepted a request body off its schema: ${ajv.errorsText(validateRequest.errors)} in ${request.body.slice(0, 300)}`];
    }
    if (request.method.toUpperCase() === 'HEAD') return [];
    const validate = ajv.getSchema(`openapi.json#/${pointer('paths', match!.template, method, 'responses', key, 'content', 'application/json', 'schema')}`);
    if (!validate) return [`${label}: no schema for ${key}`];
    return validate(body) ? [] : [`${label}: ${ajv.errorsText(validate.errors)} in ${response.body.slice(0, 300)}`];
  };
  return Object.assign(check, { covered });
}
