import { parseArgs } from 'node:util';
import { z } from 'zod';
import { summarize, type Summary } from './stats';

/**
 * Calls timed one at a time, a gap apart as records arrive at 200 req/s,
 * the kinds interleaved so that the machine's drift falls on all of them
 * alike: the loop of the micro-benchmarks (durability, transport).
 */
export interface InterleavedOptions {
  /** Calls of each kind; the first tenth is left out as warm-up. */
  calls: number;
  gapMs: number;
}

/** `--calls N` (default `defaultCalls`) and `--gap-ms N` (default 5) from the command line. */
export function interleavedOptions(args: string[], defaultCalls: number): InterleavedOptions {
  const { values } = parseArgs({ args, options: { calls: { type: 'string' }, 'gap-ms': { type: 'string' } } });
  return {
    calls: z.coerce.number().int().min(100).max(100_000).default(defaultCalls).parse(values.calls),
    gapMs: z.coerce.number().int().min(0).max(1000).default(5).parse(values['gap-ms']),
  };
}

/** The calls of each kind measured, the warm-up left out. */
export function measuredCalls({ calls }: InterleavedOptions): number {
  return calls - warmUpCalls(calls);
}

function warmUpCalls(calls: number): number {
  return Math.floor(calls / 10);
}

/** How long one call takes, in ms; a benchmark may prepare each call outside the clock. */
export type TimeOne = (run: () => Promise<unknown>) => Promise<number>;

const timeAlone: TimeOne = async (run) => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};

/** A copy of `items` in random order (Fisher-Yates). */
function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

/**
 * Each kind's percentiles over its calls after the warm-up. `onWarmedUp`
 * runs once the warm-up is over, before the first measured call. Each round
 * of calls runs the kinds in an order of its own, shuffled: a call's time
 * depends on what ran just before it (the caches it left), so no kind always
 * follows the same one.
 */
export async function timeInterleaved(
  kinds: Readonly<Record<string, () => Promise<unknown>>>,
  { calls, gapMs }: InterleavedOptions,
  { timeOne = timeAlone, onWarmedUp }: { timeOne?: TimeOne; onWarmedUp?: () => Promise<void> } = {},
): Promise<Map<string, Summary>> {
  const warmUp = warmUpCalls(calls);
  const times = new Map<string, number[]>(Object.keys(kinds).map((name) => [name, []]));
  const entries = Object.entries(kinds);
  for (let call = 0; call < calls; call += 1) {
    if (call === warmUp) await onWarmedUp?.();
    for (const [name, run] of shuffled(entries)) {
      const elapsed = await timeOne(run);
      if (call >= warmUp) times.get(name)?.push(elapsed);
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
  }
  return new Map([...times].map(([name, measured]) => [name, summarize(measured)]));
}
