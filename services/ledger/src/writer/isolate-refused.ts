import { sqlStateOf } from '@gateway/lib/db';

/**
 * Postgres refused the data itself: a data exception (class 22, such as a
 * NUL byte in text) or an integrity constraint (class 23). Writing the same
 * record again can never succeed. Anything else (a lost connection, a
 * shutdown, a missing table) may succeed later, so it is no reason to set a
 * record aside.
 */
export function isRefusedData(error: unknown): boolean {
  const code = sqlStateOf(error);
  return code !== undefined && (code.startsWith('22') || code.startsWith('23'));
}

export interface Refusal<T> {
  item: T;
  error: unknown;
}

/**
 * Writes the items together; if Postgres refuses the data, writes each half
 * on its own, down to the single items it refuses, which are returned. A
 * batch with one bad record thus costs about log2(batch) extra writes, and
 * every other record is written. Any other failure is thrown as it is: the
 * caller keeps the whole batch pending. Halves already written before such a
 * failure are written again later, which the writes must tolerate (they skip
 * known request ids).
 */
export async function writeIsolatingRefused<T>(items: T[], write: (items: T[]) => Promise<void>): Promise<Array<Refusal<T>>> {
  if (items.length === 0) return [];
  try {
    await write(items);
    return [];
  } catch (error) {
    if (!isRefusedData(error)) throw error;
    const [only] = items;
    if (items.length === 1 && only !== undefined) return [{ item: only, error }];
    const middle = Math.ceil(items.length / 2);
    const first = await writeIsolatingRefused(items.slice(0, middle), write);
    const second = await writeIsolatingRefused(items.slice(middle), write);
    return [...first, ...second];
  }
}
