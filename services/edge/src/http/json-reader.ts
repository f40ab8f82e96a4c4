import type { PlainRequest } from './plain';

/**
 * The body every SDK sends: `application/json` exactly, a Content-Length within the limit, no
 * Content-Encoding. Such a body is read here; any other goes through body-parser, which decodes,
 * decompresses and refuses the rest (docs/decisions.md, "The gateway's plain lane").
 */
export function plainJsonLength(req: PlainRequest, limitBytes: number): number | undefined {
  const { headers } = req;
  if (headers['content-type'] !== 'application/json' || headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) {
    return undefined;
  }
  const length = Number(headers['content-length']);
  return Number.isInteger(length) && length > 0 && length <= limitBytes ? length : undefined;
}

/** An error shaped as body-parser's (its `type` and `status`), so that one translation serves both readers. */
function bodyError(type: 'entity.parse.failed' | 'request.aborted'): Error {
  return Object.assign(new Error(`request body: ${type}`), { type, status: 400 });
}

/** JSON's whitespace, as body-parser's strict mode skips it before the first character. */
const LEADING_WHITESPACE = /^[\x20\x09\x0a\x0d]*/;

/**
 * Parses as body-parser's strict JSON parser does: UTF-8 (undecodable bytes become U+FFFD, a
 * byte-order mark is dropped), an object or an array at the top, JSON.parse's own rules for the rest.
 */
function parseBody(bytes: Buffer): unknown {
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const first = text[LEADING_WHITESPACE.exec(text)?.[0].length ?? 0];
  if (first !== '{' && first !== '[') throw bodyError('entity.parse.failed');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw bodyError('entity.parse.failed');
  }
}

/**
 * Reads a body of `length` bytes into `req.body` and calls `done` once, with body-parser's error
 * types on failure. Node's HTTP parser delivers exactly Content-Length bytes, so the last of them
 * completes the body: `done` runs once the parser has returned (a microtask later), not after the
 * request's `end`, which body-parser waits for through several more ticks.
 */
export function readPlainJson(req: PlainRequest, length: number, done: (error?: unknown) => void): void {
  const chunks: Buffer[] = [];
  let received = 0;
  const finish = (error?: unknown) => {
    req.off('data', onData);
    req.off('close', onClose);
    queueMicrotask(() => done(error));
  };
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    received += chunk.length;
    if (received < length) return;
    try {
      req.body = parseBody(chunks.length === 1 ? chunk : Buffer.concat(chunks, received));
      finish();
    } catch (error) {
      finish(error);
    }
  };
  // The client went away before the whole body came.
  const onClose = () => finish(bodyError('request.aborted'));
  req.on('data', onData);
  req.once('close', onClose);
}
