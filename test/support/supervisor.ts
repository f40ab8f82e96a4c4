import type { ProcessExit, ServiceProcess } from './processes';

/**
 * Restarts a service process that exits without being asked to, as
 * Kubernetes restarts a container that exits: after a wait that doubles with
 * each crash that follows a short run (CrashLoopBackOff), logged each time.
 * An exit that the process's own stop() or kill() asked for is left alone,
 * so a test that stops a service on purpose keeps it stopped.
 */
export interface RestartPolicy {
  /** The wait before the first restart (Kubernetes: 10 s; locally shorter, a developer is waiting). */
  initialBackoffMs: number;
  /** The longest wait between restarts (Kubernetes: 5 minutes). */
  maxBackoffMs: number;
  /** A process that ran at least this long before it exited counts as healthy: the wait starts again from the first. */
  resetAfterMs: number;
  /** Where the restarts are told (the console of `npm run stack`). */
  log(line: string): void;
}

export const LOCAL_RESTART_POLICY: Omit<RestartPolicy, 'log'> = { initialBackoffMs: 1000, maxBackoffMs: 30_000, resetAfterMs: 60_000 };

export interface Supervision {
  /** The process running now (or last run, while a restart is pending). */
  current(): ServiceProcess;
  /** Restarts so far. */
  restarts(): number;
  /** Restarts nothing any more (a pending restart is cancelled). */
  stop(): void;
}

function describeExit({ code, signal }: ProcessExit): string {
  return signal === null ? `exited with code ${code}` : `was ended by ${signal}`;
}

/**
 * @param launch starts the service again, with the environment and port of the process it replaces.
 * @param replaced told each new process, so that whoever holds the old one (the stack) holds the new one.
 */
export function supervise(
  first: ServiceProcess,
  launch: () => Promise<ServiceProcess>,
  policy: RestartPolicy,
  replaced: (previous: ServiceProcess, next: ServiceProcess) => void,
): Supervision {
  let current = first;
  let startedAt = Date.now();
  let restarts = 0;
  let backoffMs = policy.initialBackoffMs;
  let stopped = false;
  let pending: NodeJS.Timeout | undefined;

  const restartAfter = (delayMs: number, reason: string) => {
    policy.log(`${current.name} (pid ${current.pid}) ${reason}; restarting in ${(delayMs / 1000).toFixed(1)} s`);
    pending = setTimeout(() => void relaunch(), delayMs);
  };
  const nextBackoff = () => {
    const delay = backoffMs;
    backoffMs = Math.min(backoffMs * 2, policy.maxBackoffMs);
    return delay;
  };
  const relaunch = async () => {
    pending = undefined;
    if (stopped) return;
    restarts += 1;
    try {
      const next = await launch();
      if (stopped) {
        await next.stop();
        return;
      }
      replaced(current, next);
      current = next;
      startedAt = Date.now();
      policy.log(`${next.name} restarted (restart ${restarts}): pid ${next.pid} on ${next.address}`);
      watch(next);
    } catch (error) {
      // It exited again before listening: a crash loop, waited out ever longer.
      if (!stopped) restartAfter(nextBackoff(), `failed to start again (${error instanceof Error ? error.message : String(error)})`);
    }
  };
  const watch = (process: ServiceProcess) => {
    void process.exited.then((exit) => {
      if (stopped || exit.requested || process !== current) return;
      if (Date.now() - startedAt >= policy.resetAfterMs) backoffMs = policy.initialBackoffMs;
      restartAfter(nextBackoff(), describeExit(exit));
    });
  };
  watch(first);

  return {
    current: () => current,
    restarts: () => restarts,
    stop: () => {
      stopped = true;
      clearTimeout(pending);
    },
  };
}
