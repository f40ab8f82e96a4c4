import type { z } from 'zod';
import type { ErrorKind } from '@gateway/lib/errors';

/** Who may call an operation: an organization API key, a signed-in user's session, or anyone. */
export type Credential = 'api_key' | 'session' | 'none';

export interface OperationResponse {
  status: number;
  description: string;
  /** The JSON body's schema; absent for an empty body or one without a schema of its own. */
  schema?: z.ZodType;
  /** Set when the body is not (only) JSON: the media types it may take. */
  mediaTypes?: readonly string[];
  /** Names of response headers defined in the document's components (the gateway's `x-service-*`). */
  headers?: readonly string[];
}

/**
 * One route of edge as the reference describes it: the same zod schemas
 * that parse its path, query and body, so the document cannot drift from
 * what the route accepts.
 */
export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form: `/api/v1/orgs/{org}/keys`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  credential: Credential;
  params?: z.ZodObject;
  query?: z.ZodObject | z.ZodType;
  /** Request headers beyond the credential. */
  headers?: ReadonlyArray<{ name: string; description: string; schema: z.ZodType }>;
  body?: z.ZodType;
  /** A body that may be left out (revoke, logout, a browser's refresh). */
  bodyOptional?: boolean;
  responses: readonly OperationResponse[];
  /** The domain errors this operation answers with, beyond what every authenticated route can. */
  errors?: readonly ErrorKind[];
}
