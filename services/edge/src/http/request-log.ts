import { bindToRequest, pathOf } from '@gateway/lib/http-spans';
import type { Logger } from '@gateway/lib/logging';
import { durationHistogram, type DurationSeries } from '@gateway/lib/metrics';
import type { PlainHandler } from './plain';

/** The labels of `edge.http.duration`; the optional ones are left out of the series when absent. */
interface DurationLabels {
  method: string;
  route: string;
  status: number;
  errorType: string | undefined;
  reason: string | undefined;
  verifiedBy: string | undefined;
  aborted: boolean;
}

/**
 * One line per request, written when the response is done: the route
 * template (the path only when no route matched; never the query, headers
 * or body, which may carry secrets), the status, how long it took, and the
 * error class and internal reason of a failure. The same facts, less the
 * ids, go to the `edge.http.duration` histogram, whose labels are bounded:
 * an unmatched path counts as `unmatched`, never as itself.
 */
export function logRequests(logger: Logger): PlainHandler {
  const durations = durationHistogram('edge.http.duration', 'Time to answer one HTTP request, by route template, status, error class and who verified the credential.');
  /** Each label set's series, found by its values in a fixed order rather than by sorting and serializing the set on every request. */
  const series = new Map<string, DurationSeries>();
  const seriesOf = (labels: DurationLabels) => {
    const key = [labels.method, labels.route, labels.status, labels.errorType, labels.reason, labels.verifiedBy, labels.aborted].join('\n');
    let found = series.get(key);
    if (!found) {
      found = durations.series({
        'http.request.method': labels.method,
        'http.route': labels.route,
        'http.response.status_code': labels.status,
        ...(labels.errorType ? { 'error.type': labels.errorType } : {}),
        ...(labels.reason ? { reason: labels.reason } : {}),
        ...(labels.verifiedBy ? { verified_by: labels.verifiedBy } : {}),
        ...(labels.aborted ? { aborted: true } : {}),
      });
      series.set(key, found);
    }
    return found;
  };
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // In the request's context, so that the line carries its trace id.
    const method = req.method ?? '';
    res.once('close', bindToRequest(req, () => {
      const error = res.locals.error;
      const route = typeof req.route?.path === 'string' ? req.route.path : undefined;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      seriesOf({
        method,
        route: route ?? 'unmatched',
        status: res.statusCode,
        errorType: error?.errorClass,
        reason: error?.reasonCode,
        verifiedBy: res.locals.verifiedBy,
        aborted: !res.writableFinished,
      }).record(durationMs);
      logger.info(
        {
          method,
          ...(route === undefined ? { path: pathOf(req.url) } : { route }),
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
