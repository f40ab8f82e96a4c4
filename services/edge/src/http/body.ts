import express from 'express';
import typeis from 'type-is';
import { DomainError } from '@gateway/lib/errors';
import { bindToRequest } from '@gateway/lib/http-spans';
import { fieldNestedTooDeep, MAX_JSON_DEPTH } from './json-depth';
import { plainJsonLength, readPlainJson } from './json-reader';
import type { PlainErrorHandler, PlainHandler } from './plain';

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

/** What body-parser decompresses (zstd too, where Node has it). */
const SUPPORTED_ENCODINGS = 'gzip, deflate or br';

/**
 * A body that its Content-Encoding does not describe (`gzip` on plain JSON):
 * body-parser passes the decompressor's error on (a zlib `code`, status 400),
 * without a `type` of its own.
 */
function isUndecodableBody(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, status, type } = error as Error & { code?: unknown; status?: unknown; type?: unknown };
  return status === 400 && type === undefined && typeof code === 'string';
}

const undecodableBody = () =>
  new DomainError('validation', 'Invalid request: the request body is not encoded as its Content-Encoding says.', { field: 'content-encoding' });

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
      return new DomainError('unsupported_media_type', `Unsupported Content-Encoding: send the body as is, or compressed with one of ${SUPPORTED_ENCODINGS}.`, {
        field: 'content-encoding',
      });
    case 'charset.unsupported':
      return new DomainError('unsupported_media_type', 'Unsupported charset: the request body must be UTF-8 JSON.', {
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
const requireJsonBody: PlainHandler = (req, _res, next) => {
  // Clients send `content-length: 0` with an empty POST; that is no body at all.
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  // The exact value the SDKs send needs no parsing; type-is parses the media type (about 0.01 ms a request on the hot path).
  if (hasBody && req.headers['content-type'] !== 'application/json' && !typeis(req, ['application/json'])) {
    throw new DomainError('validation', 'Invalid request: send the body as JSON (Content-Type: application/json).', {
      field: 'content-type',
    });
  }
  next();
};

/** A body nested deeper than MAX_JSON_DEPTH is refused before any handler reads it. */
const refuseDeepNesting: PlainHandler = (req, _res, next) => {
  const field = fieldNestedTooDeep(req.body);
  if (field !== undefined) {
    throw new DomainError('validation', `Invalid request: body field "${field}" nests JSON deeper than ${MAX_JSON_DEPTH} levels, the limit.`, { field });
  }
  next();
};

/**
 * Parses JSON bodies up to the limit and the nesting depth; an absent body leaves req.body undefined.
 * The body the SDKs send is read by json-reader.ts, any other by body-parser; both refuse alike.
 * Either finishes in one of the body's events, outside the request's context: everything after it
 * (the handlers, their logs and calls) is run in the request's trace again.
 */
export function jsonBody(limitBytes: number): Array<PlainHandler | PlainErrorHandler> {
  const parse = express.json({ limit: limitBytes, strict: true });
  const parseInRequestContext: PlainHandler = (req, res, next) => {
    const parsed = bindToRequest(req, next);
    const length = plainJsonLength(req, limitBytes);
    if (length === undefined) parse(req, res, parsed);
    else readPlainJson(req, length, parsed);
  };
  const translateErrors: PlainErrorHandler = (error, _req, _res, next) => {
    if (isUndecodableBody(error)) next(undecodableBody());
    else next(isBodyParserError(error) ? fromBodyParserError(error, limitBytes) : error);
  };
  return [requireJsonBody, parseInRequestContext, translateErrors, refuseDeepNesting];
}
