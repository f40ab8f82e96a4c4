import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What edge's gateway path needs of a request: Node's own, plus the body the
 * JSON parser leaves and the route template that matched. express's Request
 * is one, so the same handlers serve through express and through a plain chain.
 */
export interface PlainRequest extends IncomingMessage {
  body?: unknown;
  route?: { path?: unknown };
}

/** Node's response with edge's per-request state (http/locals.ts); express's Response is one. */
export interface PlainResponse extends ServerResponse {
  locals: Express.Locals;
}

export type Next = (error?: unknown) => void;
export type PlainHandler = (req: PlainRequest, res: PlainResponse, next: Next) => unknown;
/** Four parameters, as express tells an error handler from the others. */
export type PlainErrorHandler = (error: unknown, req: PlainRequest, res: PlainResponse, next: Next) => unknown;

/** An answer of JSON text, as express's `res.json` writes one. */
export function sendJson(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

const isErrorHandler = (handler: PlainHandler | PlainErrorHandler): handler is PlainErrorHandler => handler.length === 4;

/**
 * Runs handlers in order the way express runs a route's stack: each calls
 * next() to go on or next(error) to skip to the following error handler,
 * and a throw or a rejected promise is next(error). express prepares every
 * request for its whole API (it swaps the request's and the response's
 * prototypes and walks its router's layers), which measured 0.2 ms of CPU a
 * request on a two-core VM (docs/decisions.md, "The gateway's plain lane"):
 * the hot path's handlers need none of it. An error left unhandled after
 * the answer began ends the connection, as express's final handler does.
 */
export function plainChain(handlers: ReadonlyArray<PlainHandler | PlainErrorHandler>): (req: IncomingMessage, res: ServerResponse) => void {
  return (request, response) => {
    const req = request as PlainRequest;
    const res = Object.assign(response, { locals: Object.create(null) as Express.Locals });
    let index = 0;
    const next: Next = (error) => {
      while (index < handlers.length) {
        const handler = handlers[index] as PlainHandler | PlainErrorHandler;
        index += 1;
        if ((error === undefined) === isErrorHandler(handler)) continue;
        try {
          const result = isErrorHandler(handler) ? handler(error, req, res, next) : handler(req, res, next);
          if (result instanceof Promise) result.catch((rejection: unknown) => next(rejection ?? new Error('Rejected promise')));
        } catch (thrown) {
          next(thrown);
        }
        return;
      }
      if (error !== undefined) res.destroy();
    };
    next();
  };
}
