import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { plainChain, sendJson, type PlainErrorHandler, type PlainHandler } from './plain';

/** Serves one chain on a real socket; resolves with its origin. */
async function serve(handlers: Array<PlainHandler | PlainErrorHandler>): Promise<{ origin: string; server: Server }> {
  const server = createServer(plainChain(handlers));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Four parameters: that is how a chain, like express, tells an error handler. */
const answerWith =
  (status: number): PlainErrorHandler =>
  (error, _req, res, _next) =>
    sendJson(res, status, JSON.stringify({ error: String(error) }));

describe('plainChain', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  it('runs the handlers in order with fresh locals, passing over error handlers while nothing failed', async () => {
    const seen: string[] = [];
    const first: PlainHandler = (_req, res, next) => {
      seen.push(`first ${Object.keys(res.locals).length}`);
      res.locals.requestId = 'r-1';
      next();
    };
    const second: PlainHandler = (_req, res) => {
      seen.push('second');
      sendJson(res, 200, JSON.stringify({ id: res.locals.requestId }));
    };
    const served = await serve([first, answerWith(500), second]);
    server = served.server;
    const response = await fetch(served.origin, { method: 'POST' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ id: 'r-1' });
    expect(seen).toEqual(['first 0', 'second']);
  });

  it('takes a throw and a rejected promise alike to the next error handler, skipping the handlers between', async () => {
    const skipped = jest.fn();
    const failing: PlainHandler = (req) => {
      if (req.url === '/throw') throw new Error('thrown');
      return Promise.reject(new Error('rejected'));
    };
    const translate: PlainErrorHandler = (error, _req, _res, next) => next(new Error(`translated ${(error as Error).message}`));
    const served = await serve([failing, skipped, translate, skipped, answerWith(400)]);
    server = served.server;
    for (const path of ['/throw', '/reject']) {
      const response = await fetch(`${served.origin}${path}`, { method: 'POST' });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: `Error: translated ${path === '/throw' ? 'thrown' : 'rejected'}` });
    }
    expect(skipped).not.toHaveBeenCalled();
  });

  it('ends the connection when an error is left over after the answer began', async () => {
    const answerThenFail: PlainHandler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
      throw new Error('after the headers');
    };
    const passOn: PlainErrorHandler = (error, _req, _res, next) => next(error);
    const served = await serve([answerThenFail, passOn]);
    server = served.server;
    // Never a whole answer that looks like a success: the socket closes before or during the body.
    await expect(fetch(served.origin, { method: 'POST' }).then((response) => response.text())).rejects.toThrow();
  });
});
