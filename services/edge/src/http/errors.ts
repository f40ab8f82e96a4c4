import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DomainError, toDomainError } from '@gateway/lib/errors';
import type { Logger } from '@gateway/lib/logging';
import type { ErrorBody } from '../contract';
import { isUndecodablePathError, undecodablePathError } from './path-parameters';
import { sendJson, type Next, type PlainErrorHandler, type PlainResponse } from './plain';

export function errorBody(error: DomainError, requestId: string): ErrorBody {
  return { error: { message: error.message, type: error.errorClass, code: error.httpStatus, request_id: requestId } };
}

/** Mounted after every route: nothing matched. */
export const unknownRoute: RequestHandler = (req) => {
  throw new DomainError('not_found', `No route ${req.method} ${req.path}.`);
};

/**
 * The one place an error becomes a response. Anything that is not a
 * DomainError is a bug: it is logged here, once, and the client sees only a
 * generic `internal` with the request id to report.
 */
export function renderErrors(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => respondWithError(logger, error, isUndecodablePathError(error) ? undecodablePathError(req) : toDomainError(error), res, next);
}

/** renderErrors for a plain chain (http/plain.ts), whose paths have no parameters to decode. */
export function renderPlainErrors(logger: Logger): PlainErrorHandler {
  return (error, _req, res, next) => respondWithError(logger, error, toDomainError(error), res, next);
}

function respondWithError(logger: Logger, error: unknown, domain: DomainError, res: PlainResponse, next: Next): void {
  if (!(error instanceof DomainError) && domain.kind === 'internal') logger.error({ err: error, request_id: res.locals.requestId }, 'unhandled error');
  if (res.headersSent) {
    // Too late for an error body; the chain's end closes the connection.
    next(error);
    return;
  }
  res.locals.error = domain;
  if (domain.retryAfterSeconds !== undefined) res.setHeader('retry-after', String(Math.max(0, Math.ceil(domain.retryAfterSeconds))));
  sendJson(res, domain.httpStatus, JSON.stringify(errorBody(domain, res.locals.requestId ?? '')));
}
