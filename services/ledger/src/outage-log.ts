import type { Logger } from '@gateway/lib/logging';

/**
 * Logs the first failure of an outage at warn and the rest at debug, then
 * the recovery: a dependency that is down for a minute at 1,000 req/s writes
 * two warn lines, not sixty thousand.
 */
export interface OutageLog {
  failed(error: unknown, fields?: Record<string, unknown>): void;
  succeeded(): void;
}

export function outageLog(logger: Logger, what: string): OutageLog {
  let failing = false;
  return {
    failed(error, fields = {}) {
      if (failing) {
        logger.debug({ ...fields, err: error }, `${what} failed`);
        return;
      }
      failing = true;
      logger.warn({ ...fields, err: error }, `${what} failed`);
    },
    succeeded() {
      if (!failing) return;
      failing = false;
      logger.info(`${what} recovered`);
    },
  };
}
