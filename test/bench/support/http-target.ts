import { Pool } from 'undici';
import type { Send } from './load';

/**
 * One kind of request (a path, headers and a JSON body) to one service,
 * spread over its replicas in turn, as a Kubernetes Service spreads
 * connections over pods. Keep-alive pools large enough that an open-loop
 * run never waits for a connection.
 */
export interface HttpTarget {
  next(): Pool;
  path: string;
  headers: Record<string, string>;
  body: string;
  close(): Promise<void>;
}

export function httpTarget(origins: readonly string[], path: string, headers: Record<string, string>, body: Record<string, unknown>): HttpTarget {
  const pools = origins.map((origin) => new Pool(origin, { connections: 512, pipelining: 1, keepAliveTimeout: 30_000 }));
  let turn = 0;
  return {
    next: () => pools[(turn += 1) % pools.length] as Pool,
    path,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    close: async () => void (await Promise.all(pools.map((pool) => pool.close()))),
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A whole answer: status 200 and the body read to its end. */
export function completion({ next, path, headers, body }: HttpTarget): Send {
  return async () => {
    const response = await next().request({ path, method: 'POST', headers, body });
    await response.body.text();
    return response.statusCode === 200 ? { ok: true } : { ok: false, reason: `status ${response.statusCode}` };
  };
}

/** Time to the first byte of a streamed answer's body, pushed to `timings`; the rest is read but not timed. */
export function firstByte({ next, path, headers, body }: HttpTarget, timings: number[]): Send {
  return async () => {
    const started = performance.now();
    const response = await next().request({ path, method: 'POST', headers, body });
    let first = true;
    for await (const _chunk of response.body) {
      if (first) timings.push(performance.now() - started);
      first = false;
    }
    return response.statusCode === 200 ? { ok: true } : { ok: false, reason: `status ${response.statusCode}` };
  };
}
