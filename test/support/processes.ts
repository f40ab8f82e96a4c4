import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { logDir, REPO_ROOT } from './paths';

/**
 * Starts a service as a real process (`node --import tsx <entry>.ts`, or
 * `node <entry>.js` for a compiled one), waits for its `listening` log line,
 * and keeps every byte it prints in the run's log folder so the suites can
 * scan the logs for credentials.
 */
export interface ServiceProcess {
  name: string;
  pid: number;
  port: number;
  address: string;
  /** Where it serves Prometheus metrics (`GET /metrics`), as its `listening` line names it. */
  metricsPort: number | undefined;
  logFile: string;
  logs(): string;
  /** SIGTERM and wait for exit (drain). */
  stop(): Promise<number | null>;
  /** SIGKILL: no drain, no goodbye. */
  kill(): Promise<void>;
  /** Resolves once the process has exited, saying how and whether stop() or kill() asked it to. */
  exited: Promise<ProcessExit>;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when this handle's stop() or kill() ended it; false for a crash or a signal from elsewhere. */
  requested: boolean;
}

export interface StartOptions {
  name: string;
  /** Path from the repository root: services/auth/src/main.ts, or services/auth/dist/main.js once built. */
  entry: string;
  env: Record<string, string>;
  readyTimeoutMs?: number;
  /** Extra options for node itself, e.g. `--cpu-prof` to profile a service under load. */
  nodeArgs?: readonly string[];
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** The ports a service's `listening` line names, once its log holds one. */
function listeningPorts(log: string): { port: number; metricsPort: number | undefined } | undefined {
  for (const line of log.split('\n')) {
    if (!line.includes('"listening"')) continue;
    try {
      const parsed = JSON.parse(line) as { msg?: string; port?: number; metrics_port?: number };
      if (parsed.msg === 'listening' && typeof parsed.port === 'number') return { port: parsed.port, metricsPort: parsed.metrics_port };
    } catch {
      // a partial line; wait for the rest
    }
  }
  return undefined;
}

/**
 * When the process last logged that its gRPC health turned SERVING (lib's
 * `health status` line, on the same host's clock), once it has: the moment a
 * backend that came back can be used, which recoveries are timed from.
 */
export function reportedServingAt(process: Pick<ServiceProcess, 'logs'>): number | undefined {
  let servingAt: number | undefined;
  for (const line of process.logs().split('\n')) {
    if (!line.includes('"health status"')) continue;
    try {
      const parsed = JSON.parse(line) as { time?: string; status?: string };
      if (parsed.status === 'SERVING' && parsed.time !== undefined) servingAt = Date.parse(parsed.time);
    } catch {
      // a partial line; the next read has it whole
    }
  }
  return servingAt;
}

/** How node runs an entry: TypeScript through tsx, compiled JavaScript as it is. */
function nodeArguments(entry: string): string[] {
  return entry.endsWith('.ts') ? ['--import', 'tsx', join(REPO_ROOT, entry)] : [join(REPO_ROOT, entry)];
}

/**
 * What every process gets unless told otherwise. Port 0 for both listeners:
 * many processes of many suites share this host. No drain delay: nothing
 * balances over these processes unless a test does, and says so.
 */
const PROCESS_DEFAULTS = { NODE_ENV: 'test', LOG_LEVEL: 'info', PORT: '0', METRICS_PORT: '0', DRAIN_DELAY_MS: '0' };

const READY_POLL_MS = 20;
let started = 0;

/**
 * How long a process may take to log `listening` before its start counts as
 * failed. The wait ends at that line; this bound only catches a process that
 * never comes up. It is generous because a suite starts several processes at
 * once, each compiling its TypeScript, on a machine other suites share.
 */
export const PROCESS_READY_TIMEOUT_MS = 180_000;

export async function startService({ name, entry, env, readyTimeoutMs = PROCESS_READY_TIMEOUT_MS, nodeArgs = [] }: StartOptions): Promise<ServiceProcess> {
  // The process writes its output straight into its log file: nothing passes
  // through this process, which may be a benchmark's load generator.
  const pending = join(logDir(), `${name}-starting-${process.pid}-${(started += 1)}.log`);
  const output = openSync(pending, 'a');
  const child = spawn(process.execPath, [...nodeArgs, ...nodeArguments(entry)], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', ...PROCESS_DEFAULTS, ...env },
    stdio: ['ignore', output, output],
  });
  closeSync(output);
  let requested = false;
  const exit = new Promise<ProcessExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, requested })));
  const logFile = join(logDir(), `${name}-${child.pid}.log`);
  renameSync(pending, logFile);

  const { port, metricsPort } = await new Promise<{ port: number; metricsPort: number | undefined }>((resolve, reject) => {
    const deadline = Date.now() + readyTimeoutMs;
    const onExit = (code: number | null) => {
      clearTimeout(poll);
      reject(new Error(`${name} exited with ${code} before listening; see ${logFile}`));
    };
    let poll: NodeJS.Timeout;
    const check = () => {
      const found = listeningPorts(readFileSync(logFile, 'utf8'));
      if (found !== undefined) {
        child.off('exit', onExit);
        resolve(found);
      } else if (Date.now() > deadline) {
        child.off('exit', onExit);
        // A process that never became ready is ours to end: leave no orphan behind.
        child.kill('SIGKILL');
        reject(new Error(`${name} did not report listening within ${readyTimeoutMs} ms; see ${logFile}`));
      } else {
        poll = setTimeout(check, READY_POLL_MS);
      }
    };
    child.once('exit', onExit);
    poll = setTimeout(check, READY_POLL_MS);
  });

  return {
    name,
    pid: child.pid ?? -1,
    port,
    address: `127.0.0.1:${port}`,
    metricsPort,
    logFile,
    logs: () => readFileSync(logFile, 'utf8'),
    stop: async () => {
      requested = true;
      child.kill('SIGTERM');
      return exited(child);
    },
    kill: async () => {
      requested = true;
      child.kill('SIGKILL');
      await exited(child);
    },
    exited: exit,
  };
}

/** Runs an entry to its exit: for processes expected to refuse to start. */
export function runToExit(entry: string, env: Record<string, string>, args: readonly string[] = []): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArguments(entry), ...args],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', PORT: '0', METRICS_PORT: '0', ...env }, timeout: 20_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, output: `${stdout}${stderr}` }),
    );
  });
}
