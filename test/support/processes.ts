import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { logDir, REPO_ROOT } from './paths';

/**
 * Starts a service as a real process (`node --import tsx <entry>`), waits for
 * its `listening` log line, and keeps every byte it prints in the run's log folder so the
 * suites can scan the logs for credentials.
 */
export interface ServiceProcess {
  name: string;
  pid: number;
  port: number;
  address: string;
  logFile: string;
  logs(): string;
  /** SIGTERM and wait for exit (drain). */
  stop(): Promise<number | null>;
  /** SIGKILL: no drain, no goodbye. */
  kill(): Promise<void>;
}

export interface StartOptions {
  name: string;
  /** Path from the repository root, e.g. services/auth/src/main.ts. */
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

export async function startService({ name, entry, env, readyTimeoutMs = 60_000, nodeArgs = [] }: StartOptions): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(REPO_ROOT, entry)], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'info', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logFile = join(logDir(), `${name}-${child.pid}.log`);
  const sink = createWriteStream(logFile);
  child.stdout?.pipe(sink, { end: false });
  child.stderr?.pipe(sink, { end: false });

  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => {
      // A process that never became ready is ours to end: leave no orphan behind.
      child.kill('SIGKILL');
      reject(new Error(`${name} did not report listening within ${readyTimeoutMs} ms; see ${logFile}`));
    }, readyTimeoutMs);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n')) {
        if (!line.includes('"listening"')) continue;
        try {
          const parsed = JSON.parse(line) as { msg?: string; port?: number };
          if (parsed.msg === 'listening' && typeof parsed.port === 'number') {
            clearTimeout(timer);
            child.stdout?.off('data', onData);
            resolve(parsed.port);
          }
        } catch {
          // a partial line; wait for the rest
        }
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening; see ${logFile}`));
    });
  });

  return {
    name,
    pid: child.pid ?? -1,
    port,
    address: `127.0.0.1:${port}`,
    logFile,
    logs: () => readFileSync(logFile, 'utf8'),
    stop: async () => {
      child.kill('SIGTERM');
      return exited(child);
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
}

/** Runs an entry to its exit: for processes expected to refuse to start. */
export function runToExit(entry: string, env: Record<string, string>, args: readonly string[] = []): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, entry), ...args],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', PORT: '0', ...env }, timeout: 20_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, output: `${stdout}${stderr}` }),
    );
  });
}
