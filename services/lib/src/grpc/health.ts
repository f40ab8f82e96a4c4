import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from 'pino';
import { whenDraining } from '../lifecycle';
import { outageReporter } from '../outages';

export { HealthImplementation } from 'grpc-health-check';

/** A named dependency probe; resolves when the dependency answers. */
export interface DependencyCheck {
  name: string;
  check: () => Promise<void>;
}

export interface HealthMonitor {
  health: HealthImplementation;
  /** The last result of every check, for readiness endpoints and logs. */
  snapshot(): Record<string, boolean>;
  /** Runs every check now and publishes the result. */
  refresh(): Promise<boolean>;
  stop(): void;
}

/**
 * `grpc.health.v1` that reports real dependency state: the overall status
 * and the named service are SERVING only while every dependency answers its
 * probe. Starts NOT_SERVING until the first round of checks passes, and
 * turns NOT_SERVING for good once the process begins to drain (SIGTERM), so
 * that probes and balancers stop sending to it while it finishes its calls.
 */
export function monitorHealth(
  serviceNames: string[],
  checks: DependencyCheck[],
  logger: Logger,
  intervalMs = 2000,
  probeTimeoutMs = 1000,
): HealthMonitor {
  const health = new HealthImplementation();
  const names = ['', ...serviceNames];
  for (const name of names) health.setStatus(name, 'NOT_SERVING');
  const state: Record<string, boolean> = Object.fromEntries(checks.map(({ name }) => [name, false]));
  // A dependency's outage is logged once, and its end, by lib's reporter, as its clients' are.
  const outages = Object.fromEntries(checks.map(({ name }) => [name, outageReporter(logger, name, { source: 'health check' })]));

  const probe = async ({ name, check }: DependencyCheck): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${probeTimeoutMs} ms`)), probeTimeoutMs);
    });
    try {
      await Promise.race([check(), timeout]);
      return true;
    } catch (error) {
      outages[name]?.failed(error);
      return false;
    } finally {
      clearTimeout(timer);
    }
  };

  let drained = false;
  let reported = false;
  const refresh = async (): Promise<boolean> => {
    if (drained) return false;
    const results = await Promise.all(checks.map(probe));
    if (drained) return false;
    checks.forEach(({ name }, index) => {
      const up = results[index] ?? false;
      if (up) outages[name]?.succeeded();
      state[name] = up;
    });
    const serving = results.every(Boolean);
    for (const name of names) health.setStatus(name, serving ? 'SERVING' : 'NOT_SERVING');
    // The moment a process starts (or stops) reporting SERVING, for an operator and for the tests that time a recovery from it.
    if (serving !== reported) logger.info({ status: serving ? 'SERVING' : 'NOT_SERVING' }, 'health status');
    reported = serving;
    return serving;
  };

  const timer = setInterval(() => void refresh(), intervalMs);
  timer.unref();
  const unsubscribe = whenDraining(() => {
    drained = true;
    clearInterval(timer);
    for (const name of names) health.setStatus(name, 'NOT_SERVING');
  });
  return {
    health,
    snapshot: () => ({ ...state }),
    refresh,
    stop: () => {
      clearInterval(timer);
      unsubscribe();
    },
  };
}
