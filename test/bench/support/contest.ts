/**
 * The measurements of `npm run bench:compare`: paced runs of each contestant
 * (the upstream called directly, Portkey's gateway, this gateway's stack,
 * the embedded mode) against the same upstream, each with the CPU every
 * process used over its window and how busy the machine was.
 */
import { cpuWindow, type CpuReading } from './cpu';
import { runPaced, type LoadResult, type Send } from './load';
import { summarize, type Summary } from './stats';

export type ContestantName = 'direct' | 'portkey' | 'gateway' | 'floor' | 'embedded';

export interface Contestant {
  name: ContestantName;
  /** A non-streamed chat completion. */
  json: Send;
  /** A streamed one, pushing its time to first byte to `timings`. */
  stream(timings: number[]): Send;
  /** Its processes by name, asked at the start of every window (Postgres backends come and go). */
  processes(): Promise<Record<string, number[]>>;
}

export type RunKind = 'json' | 'stream';

export interface Measured {
  contestant: ContestantName;
  kind: RunKind;
  rate: number;
  load: LoadResult;
  /** Streamed runs: time to first byte. */
  firstByte: Summary | undefined;
  /** CPU ms per request of each of the contestant's processes, and of the upstream and the load generator. */
  perRequest: Record<string, number>;
  /** The contestant's processes together, ms per request. */
  ownPerRequest: number;
  cpu: CpuReading;
  /** Share of all cores busy with work of processes this benchmark did not start (other users of the machine), 0..1. */
  othersBusy: number;
}

/** After the last answer, a window stays open this long so that work a request leaves behind (a batched write) is counted. */
const SETTLE_MS = 300;

export interface Arena {
  contestants: Contestant[];
  /** Processes every window reads besides the contestants': the upstream and the load generator. */
  shared: Record<string, number[]>;
}

/** Latency of a run at a percentile: of the whole answer, or of the first byte for a streamed run. */
export function latencyOf(measured: Measured, key: 'p50' | 'p90' | 'p99'): number {
  return (measured.firstByte ?? measured.load.latency)[key];
}

export function added(measured: Measured, direct: Measured, key: 'p50' | 'p90' | 'p99'): number {
  return latencyOf(measured, key) - latencyOf(direct, key);
}

export async function measure(arena: Arena, contestant: Contestant, rate: number, durationMs: number, kind: RunKind): Promise<Measured> {
  const everyone = await Promise.all(
    arena.contestants.map(async (each) => Object.entries(await each.processes()).map(([name, pids]) => [`${each.name}:${name}`, pids] as const)),
  );
  const windowPids: Record<string, number[]> = { ...arena.shared, ...Object.fromEntries(everyone.flat()) };
  const window = cpuWindow(windowPids);
  const timings: number[] = [];
  const load = await runPaced({ rate, durationMs, send: kind === 'json' ? contestant.json : contestant.stream(timings) });
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const cpu = window.stop();

  const perRequest: Record<string, number> = {};
  const requests = Math.max(1, load.sent);
  const prefix = `${contestant.name}:`;
  for (const [name, used] of Object.entries(cpu.processes)) {
    if (name.startsWith(prefix)) perRequest[name.slice(prefix.length)] = used / requests;
    else if (name in arena.shared) perRequest[name] = used / requests;
  }
  const ownPerRequest = Object.entries(cpu.processes)
    .filter(([name]) => name.startsWith(prefix))
    .reduce((total, [, used]) => total + used / requests, 0);
  const benchMs = Object.values(cpu.processes).reduce((total, used) => total + used, 0);
  const othersBusy = cpu.machineTotalMs > 0 ? Math.max(0, cpu.machineBusyMs - benchMs) / cpu.machineTotalMs : 0;
  return {
    contestant: contestant.name,
    kind,
    rate,
    load,
    firstByte: kind === 'stream' ? summarize(timings) : undefined,
    perRequest,
    ownPerRequest,
    cpu,
    othersBusy,
  };
}

/** Held: no errors on either side, and p99 added under the bound. */
export function holds(measured: Measured, direct: Measured, p99AddedMs: number): boolean {
  return measured.load.errors === 0 && direct.load.errors === 0 && added(measured, direct, 'p99') < p99AddedMs;
}
