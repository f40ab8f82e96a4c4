import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { plainJsonLength, readPlainJson } from './json-reader';
import type { PlainRequest } from './plain';

const LIMIT = 1024;

/** What a reader made of a body: the parsed value, or the type of the error it raised. */
type Outcome = { body: unknown } | { error: string };

/** One server, two readers: `/plain` reads with json-reader, `/body-parser` with express.json as edge configures it. */
async function serveBoth(): Promise<{ port: number; server: Server }> {
  const bodyParser = express.json({ limit: LIMIT, strict: true });
  const server = createServer((req, res) => {
    const answer = (error?: unknown) => {
      const outcome: Outcome = error === undefined ? { body: (req as PlainRequest).body } : { error: String((error as { type?: unknown }).type) };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(outcome));
    };
    if (req.url === '/plain') {
      const length = plainJsonLength(req, LIMIT);
      if (length === undefined) answer(new Error('not read plainly'));
      else readPlainJson(req, length, answer);
    } else {
      bodyParser(req as express.Request, res as express.Response, answer);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

/** Sends `bytes` as edge's SDK callers do, in `pieces` writes, and reads the outcome. */
function send(port: number, path: string, bytes: Buffer, pieces = 1): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const call = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': bytes.length } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Outcome));
    });
    call.on('error', reject);
    const size = Math.ceil(bytes.length / pieces);
    const writeFrom = (offset: number): void => {
      if (offset >= bytes.length) {
        call.end();
        return;
      }
      call.write(bytes.subarray(offset, offset + size));
      // Each piece in its own turn of the event loop, so that the server reads it apart.
      setImmediate(() => writeFrom(offset + size));
    };
    writeFrom(0);
  });
}

describe('readPlainJson', () => {
  let served: { port: number; server: Server };
  beforeAll(async () => {
    served = await serveBoth();
  });
  afterAll(async () => {
    await new Promise((resolve) => served.server.close(resolve));
  });

  const cases: Array<[string, Buffer]> = [
    ['an object', Buffer.from('{"model":"auto","messages":[{"role":"user","content":"hi"}]}')],
    ['an array', Buffer.from('[1,2,3]')],
    ['whitespace before the object', Buffer.from(' \t\r\n{"a":1}')],
    ['a byte-order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"b"}')])],
    ['bytes that are not UTF-8', Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')])],
    ['a string at the top', Buffer.from('"text"')],
    ['a number at the top', Buffer.from('42')],
    ['null at the top', Buffer.from('null')],
    ['whitespace only', Buffer.from('   ')],
    ['JSON cut short', Buffer.from('{"a":')],
    ['a trailing comma', Buffer.from('{"a":1,}')],
    ['a __proto__ key', Buffer.from('{"__proto__":{"polluted":true},"a":1}')],
    ['text after the object', Buffer.from('{"a":1} x')],
    ['a multi-byte character split between writes', Buffer.from('{"a":"é€😀"}')],
  ];

  it.each(cases)('reads %s as body-parser does, in one write and in pieces', async (_name, bytes) => {
    const expected = await send(served.port, '/body-parser', bytes);
    expect(await send(served.port, '/plain', bytes)).toEqual(expected);
    expect(await send(served.port, '/plain', bytes, 3)).toEqual(expected);
  });

  it('parses a body of many packets once all of it has come', async () => {
    const bytes = Buffer.from(JSON.stringify({ content: 'x'.repeat(900) }));
    expect(await send(served.port, '/plain', bytes, 10)).toEqual({ body: { content: 'x'.repeat(900) } });
  });

  it('answers once, with request.aborted, when the client goes before its whole body', async () => {
    const done = jest.fn();
    let answered: () => void = () => undefined;
    const seen = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const server = createServer((req) => {
      readPlainJson(req, 100, (error) => {
        done(error);
        answered();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const call = request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': 100 } });
    call.on('error', () => undefined);
    call.write('{"a":', () => call.destroy());
    await seen;
    await new Promise((resolve) => server.close(resolve));
    expect(done).toHaveBeenCalledTimes(1);
    expect(done.mock.calls[0]?.[0]).toMatchObject({ type: 'request.aborted', status: 400 });
  });
});

describe('plainJsonLength', () => {
  const requestWith = (headers: Record<string, string>) => ({ headers }) as unknown as PlainRequest;
  const json = { 'content-type': 'application/json' };

  it('takes only what the SDKs send: application/json exactly, a length within the limit, no encoding', () => {
    expect(plainJsonLength(requestWith({ ...json, 'content-length': '12' }), LIMIT)).toBe(12);
    expect(plainJsonLength(requestWith({ ...json, 'content-length': String(LIMIT) }), LIMIT)).toBe(LIMIT);
    // body-parser answers these: the charset, decompression, the limit's 413, the empty body's {}.
    expect(plainJsonLength(requestWith({ 'content-type': 'application/json; charset=utf-8', 'content-length': '12' }), LIMIT)).toBeUndefined();
    expect(plainJsonLength(requestWith({ ...json, 'content-length': '12', 'content-encoding': 'gzip' }), LIMIT)).toBeUndefined();
    expect(plainJsonLength(requestWith({ ...json, 'transfer-encoding': 'chunked' }), LIMIT)).toBeUndefined();
    expect(plainJsonLength(requestWith({ ...json, 'content-length': String(LIMIT + 1) }), LIMIT)).toBeUndefined();
    expect(plainJsonLength(requestWith({ ...json, 'content-length': '0' }), LIMIT)).toBeUndefined();
    expect(plainJsonLength(requestWith(json), LIMIT)).toBeUndefined();
  });
});
