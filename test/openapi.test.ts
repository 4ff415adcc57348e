import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../src/core/openapi/build-document.js';
import { createSandbox } from '../src/index.js';
import { devServerTransport, mswTransport } from './helpers/transports.js';

const document: any = buildOpenApiDocument();

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 by an independent validator', async () => {
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toMatch(/^3\.1\./);
    // The validator is not a rubber stamp: a document without its info is refused.
    const { info: _info, ...broken } = structuredClone(document);
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('describes every route of the sandbox, and nothing else', () => {
    const routes = createSandbox().routes.map(({ method, pattern }) => `${method} ${pattern.replace(/:([A-Za-z]+)/g, '{$1}')}`);
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`));
    expect(routes.length).toBeGreaterThan(40);
    expect(documented.sort()).toEqual([...routes].sort());
  });

  it('gives every error status the error body, and the success status its schema', () => {
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const statuses = Object.keys(operation.responses);
        expect(
          statuses.filter((status) => /^2/.test(status)),
          `${method} ${path}`,
        ).toHaveLength(1);
        for (const status of statuses.filter((status) => !/^2/.test(status))) {
          expect(operation.responses[status].content['application/json'].schema, `${method} ${path} ${status}`).toEqual({
            $ref: '#/components/schemas/ErrorBody',
          });
        }
        const needsKey = operation.security === undefined;
        expect(needsKey, `${method} ${path}`).toBe(!['/sandbox/health', '/openapi.json', '/link/widget/session', '/link/widget/public-token'].includes(path));
      }
    }
  });

  it('takes request bodies from the zod schemas the routes parse with', () => {
    const exchange = document.paths['/link/exchange'].post.requestBody.content['application/json'].schema;
    expect(document.components.schemas[exchange.$ref.split('/').pop()]).toMatchObject({
      required: ['publicToken'],
      properties: { publicToken: { type: 'string', minLength: 1 } },
    });
    const status = document.components.schemas.SetConnectionStatusRequest;
    expect(status.properties.status.enum).toEqual(['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY']);
  });

  it('has both webhook events with the three signed headers', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual(['OBJECT_CHANGE', 'STATUS_CHANGE']);
    for (const item of Object.values<any>(document.webhooks)) {
      expect(item.post.parameters.map((p: any) => `${p.in}:${p.name}`)).toEqual([
        'header:x-service-timestamp',
        'header:x-service-signature',
        'header:x-service-connection-id',
      ]);
    }
    expect(document.components.schemas.ObjectChangeEvent.properties.type).toEqual({ type: 'string', const: 'OBJECT_CHANGE' });
  });

  it('is the same bytes for every build (deterministic)', () => {
    expect(JSON.stringify(buildOpenApiDocument())).toBe(JSON.stringify(document));
  });
});

for (const transport of [mswTransport(), devServerTransport()]) {
  describe(`GET /openapi.json over ${transport.name}`, () => {
    afterAll(() => transport.close());
    it('answers the document without an API key', async () => {
      await transport.use(createSandbox({ clock: 'virtual' }));
      const res = await transport.call('GET', '/openapi.json', { apiKey: null });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toEqual(document);
    });
  });
}
