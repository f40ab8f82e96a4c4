import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { DomainError } from '@gateway/lib/errors';

/** The fields body-parser puts on the errors it raises. */
interface BodyParserError {
  type: string;
  status: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  if (typeof error !== 'object' || error === null) return false;
  const { type, status } = error as { type?: unknown; status?: unknown };
  return typeof type === 'string' && typeof status === 'number';
}

/**
 * body-parser's errors as DomainErrors. The parser's own message is dropped:
 * for malformed JSON it quotes the body, which may hold a credential.
 */
function fromBodyParserError(error: BodyParserError, limitBytes: number): DomainError {
  switch (error.type) {
    case 'entity.too.large':
      return new DomainError('payload_too_large', `The request body is larger than the limit of ${limitBytes} bytes.`, {
        field: 'body',
      });
    case 'entity.parse.failed':
      return new DomainError('validation', 'Invalid request: the request body is not valid JSON (send a JSON object).', {
        field: 'body',
      });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new DomainError('validation', 'Invalid request: the request body must be UTF-8 JSON without content encoding.', {
        field: 'content-type',
      });
    default:
      return new DomainError('validation', 'Invalid request: the request body could not be read.', {
        field: 'body',
        internalReason: `body-parser ${error.type}`,
      });
  }
}

/** Edge speaks JSON only: a body of any other type is refused rather than ignored. */
const requireJsonBody: RequestHandler = (req, _res, next) => {
  // Clients send `content-length: 0` with an empty POST; that is no body at all.
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is('application/json')) {
    throw new DomainError('validation', 'Invalid request: send the body as JSON (Content-Type: application/json).', {
      field: 'content-type',
    });
  }
  next();
};

/** Parses JSON bodies up to the limit; an absent body leaves req.body undefined. */
export function jsonBody(limitBytes: number): Array<RequestHandler | ErrorRequestHandler> {
  const translateErrors: ErrorRequestHandler = (error: unknown, _req, _res, next) => {
    next(isBodyParserError(error) ? fromBodyParserError(error, limitBytes) : error);
  };
  return [requireJsonBody, express.json({ limit: limitBytes, strict: true }), translateErrors];
}
