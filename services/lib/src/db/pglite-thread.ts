import { Worker } from 'node:worker_threads';

/**
 * The embedded mode's PGlite, run on a thread of its own. PGlite is Postgres
 * compiled to WebAssembly: a query runs on the thread that calls it, and the
 * record writer's transaction of a 200 ms batch (40 records at 200 req/s) held
 * the one event loop for tens of milliseconds, which every request in flight
 * then waited out (docs/decisions.md#the-embedded-modes-database-thread).
 * Here the database lives in a worker thread; callers send each statement as a
 * message and await its result, and the event loop keeps serving meanwhile.
 * Only `query` is offered: it is all Kysely's PGlite dialect calls (transactions
 * are statements on its one connection, in order).
 */
export interface PGliteQueries {
  query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

/** What PGlite's `query` gives, as Kysely's dialect reads it. */
interface QueryResult<T> {
  rows: T[];
  affectedRows?: number;
  fields: Array<{ name: string; dataTypeID: number }>;
}

interface Reply {
  id: number;
  result?: QueryResult<unknown>;
  /** A failed statement's error, as its own fields: message, SQLSTATE `code`, detail, constraint, ... */
  error?: Record<string, unknown> & { message: string };
}

// Plain JavaScript, evaluated by the worker, so no build step has to know of a second entry file.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.module);
const db = new PGlite(workerData.dataDir);
parentPort.on('message', async ({ id, sql, params, close }) => {
  try {
    if (close) {
      await db.close();
      parentPort.postMessage({ id });
      return;
    }
    const { rows, affectedRows, fields } = await db.query(sql, params);
    parentPort.postMessage({ id, result: { rows, affectedRows, fields } });
  } catch (caught) {
    const error = { message: String(caught && caught.message) };
    for (const [key, value] of Object.entries(caught ?? {})) if (value === undefined || typeof value !== 'object') error[key] = value;
    parentPort.postMessage({ id, error });
  }
});
`;

export interface PGliteThread extends PGliteQueries {
  /** Closes the database (its files flushed), then ends the thread. */
  close(): Promise<void>;
}

/** Opens the PGlite database in `dataDir` (in memory without one) on a worker thread of its own. */
export function openPGliteThread(dataDir?: string): PGliteThread {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module: require.resolve('@electric-sql/pglite'), dataDir } });
  const waiting = new Map<number, { resolve(result: Reply['result']): void; reject(error: Error): void }>();
  let nextId = 0;
  let failure: Error | undefined;
  worker.on('message', ({ id, result, error }: Reply) => {
    const caller = waiting.get(id);
    waiting.delete(id);
    if (!caller) return;
    if (error) caller.reject(Object.assign(new Error(error.message), error));
    else caller.resolve(result);
  });
  // A thread that dies fails what waits on it and every later statement: the database is gone.
  const fail = (error: Error) => {
    failure = error;
    for (const caller of waiting.values()) caller.reject(error);
    waiting.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the database thread exited (code ${code})`)));
  const send = (message: { sql?: string; params?: unknown[]; close?: true }) =>
    new Promise<Reply['result']>((resolve, reject) => {
      if (failure) return reject(failure);
      nextId += 1;
      waiting.set(nextId, { resolve, reject });
      worker.postMessage({ id: nextId, ...message });
    });
  return {
    query: async <T>(sql: string, params: unknown[] = []) => {
      const result = await send({ sql, params });
      if (!result) throw new Error('the database thread answered a query with no result');
      return result as QueryResult<T>;
    },
    close: async () => {
      await send({ close: true });
      await worker.terminate();
    },
  };
}
