import { status as GrpcStatus } from '@grpc/grpc-js';

/**
 * The one mapping from domain errors to gRPC status, HTTP status and the
 * public error class (docs/api.md#errors, docs/api.md). Every service throws DomainError;
 * the gRPC layer turns it into a status with the kind in a trailer, clients
 * turn the status back into the same DomainError, and edge renders it.
 */
export const errorKinds = [
  'validation',
  'payload_too_large',
  'unsupported_media_type',
  'auth',
  'permission',
  'not_found',
  'conflict',
  'quota',
  'rate_limit',
  'provider',
  'provider_rate_limit',
  'timeout',
  'unavailable',
  'internal',
] as const;
export type ErrorKind = (typeof errorKinds)[number];

/** The `error.type` values a client can see. */
export type ErrorClass =
  | 'validation'
  | 'auth'
  | 'permission'
  | 'not_found'
  | 'conflict'
  | 'quota'
  | 'rate_limit'
  | 'provider'
  | 'timeout'
  | 'internal';

interface KindMapping {
  grpc: GrpcStatus;
  http: number;
  errorClass: ErrorClass;
}

export const errorMapping: Record<ErrorKind, KindMapping> = {
  validation: { grpc: GrpcStatus.INVALID_ARGUMENT, http: 400, errorClass: 'validation' },
  payload_too_large: { grpc: GrpcStatus.INVALID_ARGUMENT, http: 413, errorClass: 'validation' },
  unsupported_media_type: { grpc: GrpcStatus.INVALID_ARGUMENT, http: 415, errorClass: 'validation' },
  auth: { grpc: GrpcStatus.UNAUTHENTICATED, http: 401, errorClass: 'auth' },
  permission: { grpc: GrpcStatus.PERMISSION_DENIED, http: 403, errorClass: 'permission' },
  not_found: { grpc: GrpcStatus.NOT_FOUND, http: 404, errorClass: 'not_found' },
  conflict: { grpc: GrpcStatus.ALREADY_EXISTS, http: 409, errorClass: 'conflict' },
  quota: { grpc: GrpcStatus.RESOURCE_EXHAUSTED, http: 402, errorClass: 'quota' },
  rate_limit: { grpc: GrpcStatus.RESOURCE_EXHAUSTED, http: 429, errorClass: 'rate_limit' },
  provider: { grpc: GrpcStatus.UNAVAILABLE, http: 502, errorClass: 'provider' },
  provider_rate_limit: { grpc: GrpcStatus.RESOURCE_EXHAUSTED, http: 429, errorClass: 'provider' },
  timeout: { grpc: GrpcStatus.DEADLINE_EXCEEDED, http: 504, errorClass: 'timeout' },
  unavailable: { grpc: GrpcStatus.UNAVAILABLE, http: 503, errorClass: 'internal' },
  internal: { grpc: GrpcStatus.INTERNAL, http: 500, errorClass: 'internal' },
};

export interface DomainErrorOptions {
  /** The request field at fault, for validation errors. */
  field?: string;
  /** Seconds until a retry can succeed (quota, rate limits). */
  retryAfterSeconds?: number;
  /** Internal detail for logs only; never sent to a client. */
  internalReason?: string;
  /** A code from a small fixed set, for metrics labels (never an id or a caller's text); never sent to a client. */
  reasonCode?: string;
  cause?: unknown;
}

export class DomainError extends Error {
  readonly kind: ErrorKind;
  readonly field: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly internalReason: string | undefined;
  readonly reasonCode: string | undefined;

  constructor(kind: ErrorKind, message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.kind = kind;
    this.field = options.field;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.internalReason = options.internalReason;
    this.reasonCode = options.reasonCode;
  }

  get httpStatus(): number {
    return errorMapping[this.kind].http;
  }

  get errorClass(): ErrorClass {
    return errorMapping[this.kind].errorClass;
  }
}

export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === 'string' && (errorKinds as readonly string[]).includes(value);
}

/** The single public message for every rejected credential (docs/api.md#authentication). */
export const INVALID_CREDENTIAL_MESSAGE = 'Invalid or missing credential.';

/**
 * Why a credential was refused. The caller always gets the same 401; the
 * reason goes to logs and, as a metrics label, to the rejection counts.
 */
export const credentialRejections = [
  'malformed_header',
  'missing',
  'oversized',
  'unknown_key',
  'wrong_secret',
  'revoked',
  'expired',
  'unknown_gateway_token',
  'unknown_platform_secret',
  'revoked_platform_secret',
  'unknown_agent',
] as const;
export type CredentialRejection = (typeof credentialRejections)[number];

/** `detail` is for logs (a key's public prefix, never the key). */
export function invalidCredential(reason: CredentialRejection, detail?: string): DomainError {
  return new DomainError('auth', INVALID_CREDENTIAL_MESSAGE, {
    internalReason: detail === undefined ? reason : `${reason} (${detail})`,
    reasonCode: reason,
  });
}

/** Anything that is not a DomainError is a bug: hide it behind `internal`. */
export function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  return new DomainError('internal', 'Internal error. Report it with the request id.', { cause: error });
}
