/**
 * Load generation for the benchmarks. The paced run is open-loop: request i
 * is due at start + i / rate whether or not earlier ones have answered, so a
 * slow system cannot slow the arrivals down and hide its own queueing (the
 * "coordinated omission" of closed-loop generators, and of generators that
 * burst once a second). Each latency is timed from the moment its request was
 * sent; how late the generator itself sent requests is reported beside it,
 * so a figure measured while the generator could not keep pace is visible.
 */
import { summarize, type Summary } from './stats';

export interface Outcome {
  ok: boolean;
  /** Short reason for a failure ("status 502", an error name): counted, the first few shown. */
  reason?: string;
}

/** One request: resolves when its answer has been read whole. Never rejects for an HTTP error. */
export type Send = () => Promise<Outcome>;

export interface LoadResult {
  sent: number;
  ok: number;
  errors: number;
  /** Distinct failure reasons with their counts. */
  failures: Record<string, number>;
  latency: Summary;
  /** Requests answered per second over the whole run, including the drain at its end. */
  achievedRate: number;
  /** How late the generator sent requests behind their schedule (ms). */
  sendLag: Summary;
}

function reasonOf(error: unknown): string {
  if (error instanceof Error) return (error as NodeJS.ErrnoException).code ?? error.name;
  return String(error);
}

class Recorder {
  readonly latencies: number[] = [];
  readonly lags: number[] = [];
  readonly failures: Record<string, number> = {};
  ok = 0;
  errors = 0;

  async time(send: Send): Promise<void> {
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = await send();
    } catch (error) {
      outcome = { ok: false, reason: reasonOf(error) };
    }
    this.latencies.push(performance.now() - started);
    if (outcome.ok) this.ok += 1;
    else {
      this.errors += 1;
      const reason = outcome.reason ?? 'failed';
      this.failures[reason] = (this.failures[reason] ?? 0) + 1;
    }
  }

  result(startedMs: number): LoadResult {
    const sent = this.ok + this.errors;
    return {
      sent,
      ok: this.ok,
      errors: this.errors,
      failures: this.failures,
      latency: summarize(this.latencies),
      achievedRate: sent / ((performance.now() - startedMs) / 1000),
      sendLag: summarize(this.lags),
    };
  }
}

export interface PacedOptions {
  /** Requests per second. */
  rate: number;
  durationMs: number;
  send: Send;
  /** Requests in flight beyond which a run gives up (the system has stopped keeping up). */
  maxInFlight?: number;
}

/**
 * Open-loop, evenly paced: every due request is sent on each turn of the
 * event loop, at most one scheduling turn behind its due time.
 */
export async function runPaced({ rate, durationMs, send, maxInFlight = 5000 }: PacedOptions): Promise<LoadResult> {
  const recorder = new Recorder();
  const total = Math.round((rate * durationMs) / 1000);
  const intervalMs = 1000 / rate;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let next = 0;
  while (next < total) {
    const now = performance.now();
    while (next < total && started + next * intervalMs <= now) {
      recorder.lags.push(now - (started + next * intervalMs));
      const request = recorder.time(send).finally(() => inFlight.delete(request));
      inFlight.add(request);
      next += 1;
    }
    if (inFlight.size > maxInFlight) {
      recorder.failures[`gave up: over ${maxInFlight} requests in flight`] = total - next;
      recorder.errors += total - next;
      break;
    }
    // Sleep until the next request is due. Never spin: the generator shares the
    // machine with the system it measures, and a busy wait would take its CPU.
    // Timers fire up to a millisecond late; the send lag column shows by how much.
    const wait = started + next * intervalMs - performance.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.floor(wait))));
  }
  await Promise.all(inFlight);
  return recorder.result(started);
}

export interface ClosedOptions {
  /** Requests kept in flight at all times. */
  concurrency: number;
  durationMs: number;
  send: Send;
}

/** Closed-loop: `concurrency` workers each send their next request as soon as the last one answers. */
export async function runClosed({ concurrency, durationMs, send }: ClosedOptions): Promise<LoadResult> {
  const recorder = new Recorder();
  const started = performance.now();
  const deadline = started + durationMs;
  const worker = async () => {
    while (performance.now() < deadline) await recorder.time(send);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return recorder.result(started);
}
