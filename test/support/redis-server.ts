import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@gateway/lib/net';
import { createRedis } from '@gateway/lib/redis';

/**
 * A redis-server of a run's own, on a free port in a temporary directory,
 * never the shared one on 6379: what kills it, or loads it, touches no one
 * else's run.
 *
 * `aof` persists as production does (deploy/components/dev-data/redis.yaml):
 * `appendonly yes`, `appendfsync always`. Redis writes each command to the
 * append-only file before it answers, so a killed process loses nothing it
 * acknowledged, with `everysec` too; `always` also fsyncs before answering,
 * so a machine that loses power loses nothing acknowledged either, which
 * `everysec` would (up to a second or two of writes). The ledger answers
 * `x-service-metered: true` once its record is in Redis, so that answer is
 * only as durable as this setting. `none` persists nothing, for benchmarks
 * whose Redis CPU must be the benchmark's alone.
 */
export type RedisPersistence = 'aof' | 'none';

export interface RedisServer {
  url: string;
  pid(): number;
  /** SIGKILL, as a crash: no final write, no goodbye. */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory (after kill), reloading what it persisted. */
  start(): Promise<void>;
  /** SIGTERM, then its directory removed. */
  stop(): Promise<void>;
}

const READY_ATTEMPTS = 200;
const READY_POLL_MS = 50;

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

const PERSISTENCE_ARGUMENTS: Record<RedisPersistence, string[]> = {
  aof: ['--appendonly', 'yes', '--appendfsync', 'always'],
  none: ['--appendonly', 'no'],
};

export interface RedisServerOptions {
  persistence: RedisPersistence;
  /** Configuration after the persistence's, which it overrides (e.g. `--appendfsync everysec`, `--replicaof host port`). */
  extraArguments?: readonly string[];
}

export async function startRedisServer({ persistence, extraArguments = [] }: RedisServerOptions): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const logFile = join(dir, 'redis.log');
  let child: ChildProcess | undefined;

  const launch = async () => {
    // No RDB snapshots: the AOF is the persistence, as in production.
    const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...PERSISTENCE_ARGUMENTS[persistence], ...extraArguments, '--dir', dir, '--logfile', logFile], {
      stdio: 'ignore',
    });
    child = started;
    const probe = createRedis(url);
    // Refused connections are expected until the server listens; the loop below retries.
    probe.on('error', () => undefined);
    try {
      for (let attempt = 0; ; attempt += 1) {
        if (started.exitCode !== null) throw new Error(`redis-server exited with ${started.exitCode}; see ${logFile}`);
        try {
          // PONG only once the append-only file is loaded: a server still loading answers LOADING.
          if ((await probe.ping()) === 'PONG') break;
        } catch (error) {
          if (attempt >= READY_ATTEMPTS) throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
      }
    } finally {
      probe.disconnect();
    }
  };
  const signal = async (name: NodeJS.Signals) => {
    if (!child) return;
    child.kill(name);
    await exited(child);
  };
  const stop = async () => {
    await signal('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await launch();
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: () => child?.pid ?? -1, kill: () => signal('SIGKILL'), start: launch, stop };
}
