import type { RequestHandler } from 'express';
import { bindToRequest } from '@gateway/lib/http-spans';
import type { Logger } from '@gateway/lib/logging';
import { durationHistogram } from '@gateway/lib/metrics';

/**
 * One line per request, written when the response is done: the route
 * template (the path only when no route matched; never the query, headers
 * or body, which may carry secrets), the status, how long it took, and the
 * error class and internal reason of a failure. The same facts, less the
 * ids, go to the `edge.http.duration` histogram, whose labels are bounded:
 * an unmatched path counts as `unmatched`, never as itself.
 */
export function logRequests(logger: Logger): RequestHandler {
  const durations = durationHistogram('edge.http.duration', 'Time to answer one HTTP request, by route template, status, error class and who verified the credential.');
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // In the request's context, so that the line carries its trace id.
    res.once('close', bindToRequest(req, () => {
      const error = res.locals.error;
      const route = typeof req.route?.path === 'string' ? req.route.path : undefined;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      durations.record(durationMs, {
        'http.request.method': req.method,
        'http.route': route ?? 'unmatched',
        'http.response.status_code': res.statusCode,
        ...(error ? { 'error.type': error.errorClass } : {}),
        ...(error?.reasonCode ? { reason: error.reasonCode } : {}),
        ...(res.locals.verifiedBy ? { verified_by: res.locals.verifiedBy } : {}),
        ...(res.writableFinished ? {} : { aborted: true }),
      });
      logger.info(
        {
          method: req.method,
          ...(route === undefined ? { path: req.path } : { route }),
          status: res.statusCode,
          duration_ms: durationMs,
          request_id: res.locals.requestId,
          ...(res.locals.verifiedBy ? { verified_by: res.locals.verifiedBy } : {}),
          ...(res.writableFinished ? {} : { aborted: true }),
          ...(error ? { error_type: error.errorClass, error_kind: error.kind } : {}),
          ...(error?.internalReason ? { reason: error.internalReason } : {}),
        },
        'request',
      );
    }));
    next();
  };
}
