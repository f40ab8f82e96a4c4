import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Responses in OpenAI's shapes: JSON bodies and `{error:{message,type,param,code}}`. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers });
  res.end(payload);
}

function errorType(status: number): string {
  if (status === 429) return 'requests';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

export interface ErrorDetail {
  param?: string | null;
  code?: string | null;
  headers?: OutgoingHttpHeaders;
}

export function sendError(res: ServerResponse, status: number, message: string, detail: ErrorDetail = {}): void {
  const body = { error: { message, type: errorType(status), param: detail.param ?? null, code: detail.code ?? null } };
  sendJson(res, status, body, detail.headers);
}

export class BodyTooLarge extends Error {
  override name = 'BodyTooLarge';
}

/** The request body as text, refusing more than `limitBytes`. */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge(`request body is larger than ${limitBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}
