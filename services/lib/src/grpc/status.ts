import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { DomainError, errorMapping, isErrorKind, toDomainError } from '../errors';

/** Trailer keys that carry a DomainError across a gRPC hop. */
const KIND_KEY = 'x-error-class';
const FIELD_KEY = 'x-error-field';
const RETRY_AFTER_KEY = 'x-error-retry-after';

export interface GrpcErrorPayload {
  code: GrpcStatus;
  details: string;
  metadata: Metadata;
}

/** Server side: a thrown error becomes a status with the domain kind in trailers. */
export function toGrpcError(error: unknown): GrpcErrorPayload {
  const domain = toDomainError(error);
  const metadata = new Metadata();
  metadata.set(KIND_KEY, domain.kind);
  if (domain.field !== undefined) metadata.set(FIELD_KEY, domain.field);
  if (domain.retryAfterSeconds !== undefined) metadata.set(RETRY_AFTER_KEY, String(domain.retryAfterSeconds));
  return { code: errorMapping[domain.kind].grpc, details: domain.message, metadata };
}

function firstString(metadata: Metadata | undefined, key: string): string | undefined {
  const value = metadata?.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Whether a failed call never reached a server that could answer it (no
 * connection, or one lost mid-call), as opposed to a server that answered
 * `unavailable` because a dependency of its own is down.
 */
export function isUnreachable(error: ServiceError): boolean {
  return error.code === GrpcStatus.UNAVAILABLE && !isErrorKind(firstString(error.metadata, KIND_KEY));
}

/**
 * Client side: a failed call becomes the DomainError the server threw, or,
 * when the server never answered, `timeout` / `unavailable` naming the service.
 */
export function fromGrpcError(error: ServiceError, serviceName: string): DomainError {
  const kind = firstString(error.metadata, KIND_KEY);
  if (isErrorKind(kind)) {
    const field = firstString(error.metadata, FIELD_KEY);
    const retryAfter = firstString(error.metadata, RETRY_AFTER_KEY);
    return new DomainError(kind, error.details, {
      ...(field === undefined ? {} : { field }),
      ...(retryAfter === undefined ? {} : { retryAfterSeconds: Number(retryAfter) }),
    });
  }
  switch (error.code) {
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new DomainError('timeout', `The ${serviceName} service did not answer in time.`, { cause: error });
    case GrpcStatus.UNAVAILABLE:
      return new DomainError('unavailable', `The ${serviceName} service is unavailable.`, { cause: error });
    default:
      return new DomainError('internal', 'Internal error. Report it with the request id.', {
        cause: error,
        internalReason: `${serviceName} answered ${GrpcStatus[error.code] ?? error.code}: ${error.details}`,
      });
  }
}
