import type { Logger } from 'pino';

/**
 * How a process ends without dropping work (a rolling update, a scale-down,
 * a node drain). On SIGTERM (or SIGINT):
 *
 * 1. It reports not ready at once: every gRPC health name says NOT_SERVING
 *    and edge's /readyz answers 503, so load balancers stop sending to it.
 * 2. It keeps serving for `delayMs`, while they catch up (endpoints,
 *    kube-proxy, an ingress, a client-side balancer).
 * 3. It stops accepting, and lets in-flight requests and streams finish,
 *    for up to `timeoutMs`.
 * 4. It closes its dependencies and exits 0.
 *
 * A second signal, or `delayMs + timeoutMs + CLOSE_MARGIN_MS` passing, exits
 * 1 at once. In Kubernetes a `preStop` sleep comes before the signal, and
 * terminationGracePeriodSeconds covers the preStop and that whole budget
 * (deploy/README.md, "Rollouts").
 */
export interface DrainSettings {
  /** Step 2: how long to keep serving after reporting not ready. */
  delayMs: number;
  /** Step 3: how long in-flight requests and streams may take to finish. */
  timeoutMs: number;
}

export interface Drainable {
  /** Stops accepting work and resolves once in-flight work is done, forcing it closed after `graceMs`. */
  stop(graceMs: number): Promise<void>;
  /** Closes what the process opened (databases, clients, telemetry), after stop. */
  close(): Promise<void>;
}

/** Closing dependencies and flushing telemetry after the last request: part of the budget, not of timeoutMs. */
export const CLOSE_MARGIN_MS = 5_000;

const drainListeners = new Set<() => void>();
let draining = false;

/** Whether this process has begun to drain; from then on it reports not ready. */
export function isDraining(): boolean {
  return draining;
}

/** Calls `listener` once when the process begins to drain (at once if it has); returns what unsubscribes it. */
export function whenDraining(listener: () => void): () => void {
  if (draining) {
    listener();
    return () => undefined;
  }
  drainListeners.add(listener);
  return () => drainListeners.delete(listener);
}

/** Step 1: every health report of this process turns to not ready. */
export function beginDraining(): void {
  if (draining) return;
  draining = true;
  for (const listener of drainListeners) listener();
  drainListeners.clear();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Drains the process on SIGTERM or SIGINT, as described above. */
export function drainOnSignal(logger: Logger, target: Drainable, { delayMs, timeoutMs }: DrainSettings): void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (draining) {
      logger.warn({ signal }, 'second signal while draining, exiting');
      process.exit(1);
    }
    logger.info({ signal, delay_ms: delayMs, timeout_ms: timeoutMs }, 'draining');
    beginDraining();
    const deadline = setTimeout(() => {
      logger.error('drain deadline passed, exiting');
      logger.flush();
      process.exit(1);
    }, delayMs + timeoutMs + CLOSE_MARGIN_MS);
    deadline.unref();
    const drain = async () => {
      await sleep(delayMs);
      logger.info('stopped accepting; finishing in-flight work');
      await target.stop(timeoutMs);
      await target.close();
    };
    drain().then(
      () => {
        logger.info('drained');
        logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'drain failed');
        logger.flush();
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
