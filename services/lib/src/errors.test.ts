import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  DomainError,
  INVALID_CREDENTIAL_MESSAGE,
  errorKinds,
  errorMapping,
  invalidCredential,
  isErrorKind,
  toDomainError,
  type ErrorClass,
  type ErrorKind,
} from './errors';

// The documented contract (docs/api.md#errors, docs/api.md), written out by hand so a change
// to the mapping has to change this table too.
const documented: Array<[ErrorKind, GrpcStatus, number, ErrorClass]> = [
  ['validation', GrpcStatus.INVALID_ARGUMENT, 400, 'validation'],
  ['payload_too_large', GrpcStatus.INVALID_ARGUMENT, 413, 'validation'],
  ['unsupported_media_type', GrpcStatus.INVALID_ARGUMENT, 415, 'validation'],
  ['auth', GrpcStatus.UNAUTHENTICATED, 401, 'auth'],
  ['permission', GrpcStatus.PERMISSION_DENIED, 403, 'permission'],
  ['not_found', GrpcStatus.NOT_FOUND, 404, 'not_found'],
  ['conflict', GrpcStatus.ALREADY_EXISTS, 409, 'conflict'],
  ['quota', GrpcStatus.RESOURCE_EXHAUSTED, 402, 'quota'],
  ['rate_limit', GrpcStatus.RESOURCE_EXHAUSTED, 429, 'rate_limit'],
  ['provider', GrpcStatus.UNAVAILABLE, 502, 'provider'],
  ['provider_rate_limit', GrpcStatus.RESOURCE_EXHAUSTED, 429, 'provider'],
  ['timeout', GrpcStatus.DEADLINE_EXCEEDED, 504, 'timeout'],
  ['unavailable', GrpcStatus.UNAVAILABLE, 503, 'internal'],
  ['internal', GrpcStatus.INTERNAL, 500, 'internal'],
];

describe('error mapping', () => {
  it('documents every kind exactly once', () => {
    expect(documented.map(([kind]) => kind).sort()).toEqual([...errorKinds].sort());
  });

  it.each(documented)('%s maps to gRPC %s, HTTP %s, class %s', (kind, grpc, http, errorClass) => {
    expect(errorMapping[kind]).toEqual({ grpc, http, errorClass });
    const error = new DomainError(kind, 'message');
    expect(error.httpStatus).toBe(http);
    expect(error.errorClass).toBe(errorClass);
  });
});

describe('DomainError', () => {
  it('carries its options and stays an Error', () => {
    const cause = new Error('root');
    const error = new DomainError('quota', 'Allowance exhausted.', {
      field: 'model',
      retryAfterSeconds: 60,
      internalReason: 'spend over allowance',
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('DomainError');
    expect(error.message).toBe('Allowance exhausted.');
    expect(error.field).toBe('model');
    expect(error.retryAfterSeconds).toBe(60);
    expect(error.internalReason).toBe('spend over allowance');
    expect(error.cause).toBe(cause);
  });

  it('leaves the options undefined when not given', () => {
    const error = new DomainError('not_found', 'No such key.');
    expect([error.field, error.retryAfterSeconds, error.internalReason, error.cause]).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe('isErrorKind', () => {
  it('accepts the kinds and nothing else', () => {
    for (const kind of errorKinds) expect(isErrorKind(kind)).toBe(true);
    for (const other of ['', 'Validation', 'error', 'toString', undefined, null, 401, {}]) expect(isErrorKind(other)).toBe(false);
  });
});

describe('invalidCredential', () => {
  it('gives every rejection the same public message and keeps the reason internal', () => {
    const revoked = invalidCredential('revoked');
    const unknown = invalidCredential('unknown_key');
    expect(revoked.kind).toBe('auth');
    expect(revoked.message).toBe(INVALID_CREDENTIAL_MESSAGE);
    expect(unknown.message).toBe(revoked.message);
    expect(revoked.internalReason).toBe('revoked');
    expect(revoked.reasonCode).toBe('revoked');
    expect(revoked.message).not.toContain('revoked');
    expect(invalidCredential('wrong_secret', 'prefix svc_test_0a1b2c3d')).toMatchObject({
      internalReason: 'wrong_secret (prefix svc_test_0a1b2c3d)',
      reasonCode: 'wrong_secret',
    });
  });
});

describe('toDomainError', () => {
  it('passes a DomainError through unchanged', () => {
    const error = new DomainError('validation', 'name: required', { field: 'name' });
    expect(toDomainError(error)).toBe(error);
  });

  it.each([
    ['an Error', new Error('relation "auth.api_keys" does not exist at /srv/app.ts:12')],
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a string', 'connection refused to 10.0.0.5'],
    ['undefined', undefined],
  ])('hides %s as internal with a generic message', (_label, thrown) => {
    const error = toDomainError(thrown);
    expect(error.kind).toBe('internal');
    expect(error.httpStatus).toBe(500);
    expect(error.message).toBe('Internal error. Report it with the request id.');
    expect(error.cause).toBe(thrown);
  });
});
