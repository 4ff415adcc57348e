import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { SandboxApi } from './api.js';
import { jsonOf } from './tool.js';
import { unifiedObjectsDocument } from './unified-tools.js';

/** A resource as `resources/list` gives it, and how to read its text. */
export interface Resource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  read(): Promise<string>;
}

/** A URI no resource has: MCP's resource-not-found error. */
export class UnknownResource extends Error {
  constructor(uri: string, known: readonly Resource[]) {
    super(`no resource ${JSON.stringify(uri)}; resources: ${known.map((resource) => resource.uri).join(', ')}`);
    this.name = 'UnknownResource';
  }
}

/**
 * The interface itself, for an agent to read: the OpenAPI document (`GET /openapi.json`, so it is
 * the server's with `--server`), the unified objects' fields and filters (the package's
 * descriptions), the JSON Schema of scenario definitions, and each built-in
 * scenario's file (YAML with a comment block on what it shows), the package's own.
 */
export async function listResources(api: SandboxApi): Promise<Resource[]> {
  // The scenario engine (and YAML) is loaded when a client first asks for the resources.
  const [{ scenarioJsonSchema }, { listBuiltIns }] = await Promise.all([import('../scenarios/index.js'), import('../node/scenario-files.js')]);
  return [
    {
      uri: 'crm-sandbox://openapi.json',
      name: 'openapi.json',
      title: 'OpenAPI document',
      description:
        "OpenAPI 3.1 document of every route: the service's endpoints, the control API (/sandbox), the link widget's, and the two webhook events; schemas of every record type",
      mimeType: 'application/json',
      read: async () => {
        const answer = await api.request('GET', '/openapi.json');
        jsonOf(answer);
        return answer.text;
      },
    },
    {
      uri: 'crm-sandbox://unified-objects.json',
      name: 'unified-objects.json',
      title: 'Unified objects',
      description:
        'The unified objects the *_unified_record tools read and write: their routes, answer keys, the fields a create and an update take and require, link ids, lookups, and the fields each search filters on with their operators',
      mimeType: 'application/json',
      read: async () => JSON.stringify(unifiedObjectsDocument(), null, 2),
    },
    {
      uri: 'crm-sandbox://scenario.schema.json',
      name: 'scenario.schema.json',
      title: 'Scenario JSON Schema',
      description: 'JSON Schema of a scenario definition (run_scenario and validate_scenario take one; scenario files are the same in YAML)',
      mimeType: 'application/schema+json',
      read: async () => JSON.stringify(scenarioJsonSchema(), null, 2),
    },
    ...listBuiltIns().map(({ name, description, file }) => ({
      uri: `crm-sandbox://scenarios/${basename(file)}`,
      name: basename(file),
      title: `Scenario ${name}`,
      description: `Built-in scenario: ${description}`,
      mimeType: 'application/yaml',
      read: async () => readFileSync(file, 'utf8'),
    })),
  ];
}

/** The text of the resource at `uri`. */
export async function readResource(api: SandboxApi, uri: string): Promise<{ resource: Resource; text: string }> {
  const resources = await listResources(api);
  const resource = resources.find((candidate) => candidate.uri === uri);
  if (!resource) throw new UnknownResource(uri, resources);
  return { resource, text: await resource.read() };
}
