import { z } from 'zod';
import { errorMapping } from '@gateway/lib/errors';
import { errorBodySchema } from '../contract';
import { ACCESS_TOKEN_COOKIE } from '../identity/cookie';
import { accountOperations } from './account-operations';
import { agentOperations } from './agent-operations';
import { gatewayOperations } from './gateway-operations';
import { GATEWAY_HEADER_DESCRIPTIONS, STREAMED_AT_END } from './headers';
import type { Credential, Operation, OperationResponse } from './operation';

/** Every route edge serves under /api, /healthz and /readyz (the Console's pages aside). */
export const operations: readonly Operation[] = [...gatewayOperations, ...accountOperations, ...agentOperations];

type JsonSchema = Record<string, unknown>;

/** A zod schema as OpenAPI 3.1's JSON Schema (2020-12): what a client sends (`input`) or receives (`output`). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** Path and query parameters: one per property of the object schema that parses them. */
function parameters(location: 'path' | 'query', schema: z.ZodType | undefined): JsonSchema[] {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input');
  const required = new Set((object.required as string[] | undefined) ?? []);
  return Object.entries((object.properties as Record<string, JsonSchema> | undefined) ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    schema: property,
  }));
}

const SECURITY: Record<Credential, JsonSchema[]> = {
  api_key: [{ api_key: [] }],
  session: [{ access_token: [] }, { session_cookie: [] }],
  none: [],
};

function response({ description, schema, mediaTypes, headers }: OperationResponse): JsonSchema {
  const body = schema ? { schema: jsonSchema(schema, 'output') } : {};
  const types = mediaTypes ?? (schema ? ['application/json'] : []);
  return {
    description,
    ...(headers ? { headers: Object.fromEntries(headers.map((name) => [name, { $ref: `#/components/headers/${name}` }])) } : {}),
    ...(types.length > 0 ? { content: Object.fromEntries(types.map((type) => [type, type === 'application/json' ? body : {}])) } : {}),
  };
}

/** The error statuses an operation can answer with, each with the error body. */
function errorResponses(operation: Operation): Record<string, JsonSchema> {
  const kinds = new Set(operation.errors ?? []);
  if (operation.credential !== 'none') kinds.add('auth');
  if (operation.body) kinds.add('validation');
  const statuses = new Map<number, string[]>();
  for (const kind of kinds) {
    const { http, errorClass } = errorMapping[kind];
    statuses.set(http, [...(statuses.get(http) ?? []), errorClass]);
  }
  const entries = [...statuses].map(([status, classes]) => [
    String(status),
    { description: `Error (\`error.type\`: ${[...new Set(classes)].join(', ')}).`, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
  ]);
  return Object.fromEntries([
    ...entries,
    ['default', { description: 'Any other error, in the same body.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }],
  ]);
}

function operationObject(operation: Operation): JsonSchema {
  const headerParameters = (operation.headers ?? []).map(({ name, description, schema }) => ({
    name,
    in: 'header',
    required: !schema.safeParse(undefined).success,
    description,
    schema: jsonSchema(schema, 'input'),
  }));
  return {
    operationId: `${operation.method}${operation.path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_match, next: string | undefined) => (next ?? '').toUpperCase())}`,
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    security: SECURITY[operation.credential],
    parameters: [...parameters('path', operation.params), ...parameters('query', operation.query), ...headerParameters],
    ...(operation.body
      ? { requestBody: { required: !operation.bodyOptional, content: { 'application/json': { schema: jsonSchema(operation.body, 'input') } } } }
      : {}),
    responses: {
      ...Object.fromEntries(operation.responses.map((answer) => [String(answer.status), response(answer)])),
      ...errorResponses(operation),
    },
  };
}

function paths(): JsonSchema {
  const byPath: Record<string, JsonSchema> = {};
  for (const operation of operations) byPath[operation.path] = { ...byPath[operation.path], [operation.method]: operationObject(operation) };
  return byPath;
}

function gatewayHeaders(): JsonSchema {
  return Object.fromEntries(
    Object.entries(GATEWAY_HEADER_DESCRIPTIONS).map(([name, description]) => [
      name,
      {
        description: STREAMED_AT_END.includes(name) ? `${description} In a stream: an HTTP trailer, and in the last event's \`x_service\`.` : description,
        schema: { type: 'string' },
      },
    ]),
  );
}

/** The version of the API the paths carry (`v1`), not of a release. */
const API_VERSION = '1.0.0';

/** The OpenAPI 3.1 document of edge's HTTP API. */
export function openApiDocument(): JsonSchema {
  return {
    openapi: '3.1.1',
    info: {
      title: 'LLM gateway HTTP API',
      version: API_VERSION,
      description: 'The OpenAI-compatible gateway, identity, the Console\'s organization API, usage and the agent API. The reference in prose is docs/api.md.',
    },
    tags: [
      { name: 'gateway', description: 'OpenAI-compatible inference, for organization API keys.' },
      { name: 'identity', description: 'Sign-in, refresh, sign-out.' },
      { name: 'console', description: 'An organization\'s keys, agents and quota, for its members.' },
      { name: 'usage', description: 'Requests, latency and cost.' },
      { name: 'agent', description: 'A user\'s own agent.' },
      { name: 'health', description: 'Probes and this document.' },
    ],
    paths: paths(),
    components: {
      securitySchemes: {
        api_key: { type: 'http', scheme: 'bearer', description: 'An organization API key (`svc_live_…`/`svc_test_…`), from the Console or `npm run admin`.' },
        access_token: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A signed-in user\'s access token (15 minutes), from `POST /api/auth/v1/token`.' },
        session_cookie: { type: 'apiKey', in: 'cookie', name: ACCESS_TOKEN_COOKIE, description: 'The same access token, in the cookie the sign-in sets.' },
      },
      schemas: { Error: jsonSchema(errorBodySchema, 'output') },
      headers: gatewayHeaders(),
    },
  };
}
