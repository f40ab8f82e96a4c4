import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../../support/paths';

/**
 * A benchmark's own server as a process of its own (the echo server, the
 * upstream mock): started through tsx, it prints the port it bound as its
 * first line on stdout. Its CPU is then its own, apart from the load
 * generator's, and it never shares an event loop with what it measures.
 */
export interface HelperProcess {
  pid: number;
  port: number;
  /** SIGTERM, and wait for it to exit. */
  stop(): Promise<void>;
}

export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * `env` is added to the little it gets (PATH, NODE_ENV=production): a helper
 * that needs addresses reads them there. `nodeArgs` go before the entry (a profiler's).
 */
export function startHelperProcess(entry: string, env: Record<string, string> = {}, nodeArgs: readonly string[] = []): Promise<HelperProcess> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(REPO_ROOT, entry)], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${entry} exited with ${code} before printing its port`));
    child.once('exit', onExit);
    child.stdout?.once('data', (chunk: Buffer) => {
      child.off('exit', onExit);
      resolve({
        pid: child.pid ?? -1,
        port: Number(chunk.toString().trim()),
        stop: async () => {
          child.kill('SIGTERM');
          await exited(child);
        },
      });
    });
  });
}
