import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keyFingerprint } from './simulator';

/**
 * A transparent HTTP proxy between edge and the simulator that keeps the
 * body of every request edge sends upstream, so a suite can compare it with
 * what the client sent: passthrough of standard fields, exactly the dropped
 * parameters missing. Keys are kept only as fingerprints.
 */
export interface UpstreamRequest {
  path: string;
  body: Record<string, unknown>;
  /** First 8 hex characters of the SHA-256 of the bearer key. */
  keyFingerprint: string;
}

export interface UpstreamRecorder {
  /** What edge's UPSTREAM_BASE_URL points at. */
  baseUrl: string;
  /** Where requests go on to; set once the simulator is up. */
  forwardTo(origin: string): void;
  /** Requests seen so far, oldest first. */
  requests(): UpstreamRequest[];
  last(): UpstreamRequest;
  close(): Promise<void>;
}

export async function startUpstreamRecorder(): Promise<UpstreamRecorder> {
  const seen: UpstreamRequest[] = [];
  let target: URL | undefined;

  const forward = (incoming: IncomingMessage, outgoing: ServerResponse, raw: Buffer) => {
    if (!target) {
      outgoing.writeHead(503).end();
      return;
    }
    const bearer = /^Bearer (.+)$/.exec(incoming.headers.authorization ?? '')?.[1] ?? '';
    if (incoming.method === 'POST') {
      seen.push({ path: incoming.url ?? '', body: JSON.parse(raw.toString('utf8')) as Record<string, unknown>, keyFingerprint: keyFingerprint(bearer) });
    }
    const upstream = request(
      new URL(incoming.url ?? '/', target),
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    // The gateway gave up (a timeout): stop the simulator's side as well.
    outgoing.on('close', () => upstream.destroy());
    upstream.end(raw);
  };

  const server = createServer((incoming, outgoing) => {
    const pieces: Buffer[] = [];
    incoming.on('data', (piece: Buffer) => pieces.push(piece));
    incoming.on('end', () => forward(incoming, outgoing, Buffer.concat(pieces)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    forwardTo: (origin) => {
      target = new URL(origin);
    },
    requests: () => [...seen],
    last: () => {
      const latest = seen.at(-1);
      if (!latest) throw new Error('no request reached the upstream');
      return latest;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
