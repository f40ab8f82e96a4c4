import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { DomainError, errorKinds, errorMapping } from '../errors';
import { fromGrpcError, toGrpcError } from './status';

/** What grpc-js hands a client callback: the server's status, details and trailers. */
function asServiceError({ code, details, metadata }: { code: GrpcStatus; details: string; metadata: Metadata }): ServiceError {
  return Object.assign(new Error(`${code} ${GrpcStatus[code]}: ${details}`), { code, details, metadata });
}

describe('toGrpcError', () => {
  it.each([...errorKinds])('uses the mapped status for %s', (kind) => {
    const payload = toGrpcError(new DomainError(kind, 'message'));
    expect(payload.code).toBe(errorMapping[kind].grpc);
    expect(payload.metadata.get('x-error-class')).toEqual([kind]);
  });

  it('hides an unexpected error behind internal with a generic message', () => {
    const payload = toGrpcError(new Error('password authentication failed for user "auth" at 10.1.2.3'));
    expect(payload.code).toBe(GrpcStatus.INTERNAL);
    expect(payload.details).toBe('Internal error. Report it with the request id.');
    expect(payload.metadata.get('x-error-class')).toEqual(['internal']);
  });

  it('never sends the internal reason', () => {
    const payload = toGrpcError(new DomainError('auth', 'Invalid or missing credential.', { internalReason: 'revoked' }));
    expect(JSON.stringify(payload.metadata.toJSON())).not.toContain('revoked');
    expect(payload.details).not.toContain('revoked');
  });
});

describe('toGrpcError then fromGrpcError', () => {
  it.each([...errorKinds])('gives back %s with its message', (kind) => {
    const back = fromGrpcError(asServiceError(toGrpcError(new DomainError(kind, `a ${kind} problem`))), 'auth');
    expect(back).toBeInstanceOf(DomainError);
    expect(back.kind).toBe(kind);
    expect(back.message).toBe(`a ${kind} problem`);
    expect(back.field).toBeUndefined();
    expect(back.retryAfterSeconds).toBeUndefined();
  });

  it('keeps the field of a validation error', () => {
    const thrown = new DomainError('validation', 'scopes: unknown scope "admin"; valid scopes: inference, usage:read', { field: 'scopes' });
    const back = fromGrpcError(asServiceError(toGrpcError(thrown)), 'auth');
    expect([back.kind, back.message, back.field]).toEqual(['validation', thrown.message, 'scopes']);
  });

  it('keeps the retry-after of a quota error', () => {
    const thrown = new DomainError('quota', 'Monthly allowance exhausted.', { retryAfterSeconds: 86_399 });
    const back = fromGrpcError(asServiceError(toGrpcError(thrown)), 'ledger');
    expect([back.kind, back.message, back.retryAfterSeconds]).toEqual(['quota', thrown.message, 86_399]);
  });

  it('keeps a zero retry-after', () => {
    const back = fromGrpcError(asServiceError(toGrpcError(new DomainError('rate_limit', 'Slow down.', { retryAfterSeconds: 0 }))), 'auth');
    expect(back.retryAfterSeconds).toBe(0);
  });
});

describe('fromGrpcError without the kind trailer', () => {
  const bare = (code: GrpcStatus, details: string) => asServiceError({ code, details, metadata: new Metadata() });

  it('turns UNAVAILABLE into unavailable naming the service', () => {
    const error = fromGrpcError(bare(GrpcStatus.UNAVAILABLE, 'No connection established'), 'auth');
    expect(error.kind).toBe('unavailable');
    expect(error.httpStatus).toBe(503);
    expect(error.message).toBe('The auth service is unavailable.');
  });

  it('turns DEADLINE_EXCEEDED into timeout naming the service', () => {
    const error = fromGrpcError(bare(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded after 0.2s'), 'pricing');
    expect(error.kind).toBe('timeout');
    expect(error.httpStatus).toBe(504);
    expect(error.message).toBe('The pricing service did not answer in time.');
  });

  it.each([GrpcStatus.UNIMPLEMENTED, GrpcStatus.UNKNOWN, GrpcStatus.INTERNAL, GrpcStatus.INVALID_ARGUMENT])(
    'turns status %s into internal, keeping the detail out of the message',
    (code) => {
      const error = fromGrpcError(bare(code, 'Received message larger than max'), 'router');
      expect(error.kind).toBe('internal');
      expect(error.message).toBe('Internal error. Report it with the request id.');
      expect(error.internalReason).toContain('router answered');
      expect(error.internalReason).toContain('Received message larger than max');
    },
  );

  it('ignores a trailer that names no known kind', () => {
    const metadata = new Metadata();
    metadata.set('x-error-class', 'teapot');
    const error = fromGrpcError(asServiceError({ code: GrpcStatus.UNAVAILABLE, details: 'x', metadata }), 'auth');
    expect(error.kind).toBe('unavailable');
  });
});
