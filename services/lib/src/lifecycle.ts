import type { Logger } from 'pino';

/**
 * Drains a process on SIGTERM or SIGINT: stop taking work, finish what is in
 * flight, close dependencies, exit. A second signal, or the deadline, exits at once.
 */
export function drainOnSignal(logger: Logger, drain: () => Promise<void>, deadlineMs = 10_000): void {
  let draining = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (draining) process.exit(1);
    draining = true;
    logger.info({ signal }, 'draining');
    const timer = setTimeout(() => {
      logger.error('drain deadline passed, exiting');
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    drain().then(
      () => {
        logger.info('drained');
        logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'drain failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
