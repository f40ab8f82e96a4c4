import { Pool } from 'undici';
import type { Send } from './load';

/**
 * One kind of request (a path, headers and a JSON body) to one service,
 * spread over its replicas in turn, as a Kubernetes Service spreads
 * connections over pods. Keep-alive pools large enough that an open-loop
 * run never waits for a connection. Given several sets of headers (several
 * callers' keys), each request carries one of them picked at random, as
 * independent clients' calls arrive.
 */
export interface HttpTarget {
  next(): Pool;
  path: string;
  /** The headers of the next request. */
  nextHeaders(): Record<string, string>;
  body: string;
  close(): Promise<void>;
}

export function httpTarget(
  origins: readonly string[],
  path: string,
  headers: Record<string, string> | readonly Record<string, string>[],
  body: Record<string, unknown>,
): HttpTarget {
  const pools = origins.map((origin) => new Pool(origin, { connections: 512, pipelining: 1, keepAliveTimeout: 30_000 }));
  const headerSets = (Array.isArray(headers) ? headers : [headers]).map((set: Record<string, string>) => ({ 'content-type': 'application/json', ...set }));
  if (headerSets.length === 0) throw new Error('a target needs at least one set of headers');
  let turn = 0;
  return {
    next: () => pools[(turn += 1) % pools.length] as Pool,
    path,
    nextHeaders: () => headerSets[headerSets.length === 1 ? 0 : Math.floor(Math.random() * headerSets.length)] as Record<string, string>,
    body: JSON.stringify(body),
    close: async () => void (await Promise.all(pools.map((pool) => pool.close()))),
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A whole answer: status 200 and the body read to its end. */
export function completion({ next, path, nextHeaders, body }: HttpTarget): Send {
  return async () => {
    const response = await next().request({ path, method: 'POST', headers: nextHeaders(), body });
    await response.body.text();
    return response.statusCode === 200 ? { ok: true } : { ok: false, reason: `status ${response.statusCode}` };
  };
}

/** Time to the first byte of a streamed answer's body, pushed to `timings`; the rest is read but not timed. */
export function firstByte({ next, path, nextHeaders, body }: HttpTarget, timings: number[]): Send {
  return async () => {
    const started = performance.now();
    const response = await next().request({ path, method: 'POST', headers: nextHeaders(), body });
    let first = true;
    for await (const _chunk of response.body) {
      if (first) timings.push(performance.now() - started);
      first = false;
    }
    return response.statusCode === 200 ? { ok: true } : { ok: false, reason: `status ${response.statusCode}` };
  };
}
