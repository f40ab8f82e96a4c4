import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@gateway/lib/net';
import { createRedis } from '@gateway/lib/redis';
import { exited } from './helper-process';

/**
 * A Redis server of the benchmark's own, on a free port in a temporary
 * directory, persisting nothing: its CPU is then the benchmark's alone (the
 * shared one on 6379 also serves every other test run on the machine).
 */
export interface PrivateRedis {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const READY_ATTEMPTS = 100;
const READY_POLL_MS = 50;

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', join(dir, 'redis.log')],
    { stdio: 'ignore' },
  );
  const stop = async () => {
    child.kill('SIGTERM');
    await exited(child);
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `redis://127.0.0.1:${port}`;
  const probe = createRedis(url);
  // Refused connections are expected until the server listens; the loop below retries.
  probe.on('error', () => undefined);
  try {
    for (let attempt = 0; ; attempt += 1) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}; see ${join(dir, 'redis.log')}`);
      try {
        if ((await probe.ping()) === 'PONG') break;
      } catch (error) {
        if (attempt >= READY_ATTEMPTS) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    probe.disconnect();
  }
  return { url, pid: child.pid ?? -1, stop };
}
