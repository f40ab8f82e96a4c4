import { randomBytes } from 'node:crypto';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { parseTraceParent } from '@opentelemetry/core';
import type { PlainHandler } from './plain';

export const REQUEST_ID_HEADER = 'x-service-request-id';
/** The header the OpenAI SDKs read the request id from (`_request_id`, `request_id`): the same id. */
export const OPENAI_REQUEST_ID_HEADER = 'x-request-id';

/**
 * The request id is the W3C trace id of the request's server span (opened by
 * lib's traceRequests), so searching the trace backend for it finds the
 * whole trace across every service. Without telemetry a random id of the
 * same shape stands in.
 */
export function currentRequestId(): string {
  const context = trace.getActiveSpan()?.spanContext();
  if (context && isSpanContextValid(context)) return context.traceId;
  return randomBytes(16).toString('hex');
}

/**
 * Each request starts a new trace (edge ignores an incoming traceparent, so
 * a client cannot pick the request id); the caller's own trace, if it sent
 * one, is kept as a link on the server span.
 */
function linkCallerTrace(traceparent: string | string[] | undefined): void {
  const callerContext = typeof traceparent === 'string' ? parseTraceParent(traceparent) : null;
  if (callerContext) trace.getActiveSpan()?.addLink({ context: callerContext });
}

/** Runs first: every response, success or error, carries the id. */
export const assignRequestId: PlainHandler = (req, res, next) => {
  linkCallerTrace(req.headers.traceparent);
  const id = currentRequestId();
  res.locals.requestId = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  res.setHeader(OPENAI_REQUEST_ID_HEADER, id);
  next();
};
