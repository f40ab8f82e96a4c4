import type { RequestHandler } from 'express';
import type { Logger } from '@gateway/lib/logging';

/**
 * One line per request, written when the response is done: the route
 * template (the path only when no route matched; never the query, headers
 * or body, which may carry secrets), the status, how long it took, and the
 * error class and internal reason of a failure.
 */
export function logRequests(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const error = res.locals.error;
      logger.info(
        {
          method: req.method,
          ...(typeof req.route?.path === 'string' ? { route: req.route.path } : { path: req.path }),
          status: res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
          request_id: res.locals.requestId,
          ...(res.locals.verifiedBy ? { verified_by: res.locals.verifiedBy } : {}),
          ...(res.writableFinished ? {} : { aborted: true }),
          ...(error ? { error_type: error.errorClass, error_kind: error.kind } : {}),
          ...(error?.internalReason ? { reason: error.internalReason } : {}),
        },
        'request',
      );
    });
    next();
  };
}
