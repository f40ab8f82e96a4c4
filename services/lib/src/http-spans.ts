import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { ConfigError } from './config';
import { captured, requestAttributes } from './http-span-attributes';

/**
 * The server span of every incoming HTTP request, kept by lib itself: a span
 * named after the method, with OpenTelemetry's stable HTTP attributes and the
 * captured headers, and the request's listener run inside it, so its logs and
 * its calls carry the trace id. (OpenTelemetry's HTTP instrumentation did
 * this by patching node:http and binding every listener of each request's
 * and response's emitters to the context, and computed the attributes even
 * for a span that is not recorded: 4% of edge's own work.)
 *
 * A public request always starts a new trace, so a client cannot choose the
 * request id: an incoming `traceparent` is not adopted (edge keeps it as a
 * link). Listeners of the request's and response's events run outside the
 * request's context; what needs it there re-enters it with
 * `bindToRequest` (edge, after reading the body).
 */

/** Requests that are not traffic: liveness, readiness and metric scrapes make no traces. */
const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Headers recorded as span attributes on HTTP server spans
 * (`http.request.header.<name>`, `http.response.header.<name>`), from the
 * variables OpenTelemetry's other SDKs read. By default the request id a
 * proxy in front sets (x-request-id), and the gateway's own request id
 * (x-service-request-id, which is also the trace id), so either finds the
 * trace. A header that carries a credential is refused.
 */
export const CAPTURE_REQUEST_HEADERS = 'OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_SERVER_REQUEST';
export const CAPTURE_RESPONSE_HEADERS = 'OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_SERVER_RESPONSE';
const DEFAULT_REQUEST_HEADERS = 'x-request-id';
const DEFAULT_RESPONSE_HEADERS = 'x-service-request-id';
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie)$|key|token|secret|password|auth/;

export function capturedHeaders(variable: string, fallback: string, environment: NodeJS.ProcessEnv = process.env): string[] {
  const names = (environment[variable] ?? fallback)
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const refused = names.filter((name) => CREDENTIAL_HEADER.test(name));
  if (refused.length > 0) throw new ConfigError([`${variable}: ${refused.join(', ')} may carry a credential, which never goes into a trace`]);
  return names;
}

const tracer = trace.getTracer('gateway-http');
const REQUEST_CONTEXT = Symbol('gateway.requestContext');
type TracedRequest = IncomingMessage & { [REQUEST_CONTEXT]?: Context };

function endRequestSpan(span: Span, response: ServerResponse, responseHeaders: readonly string[]): void {
  if (span.isRecording()) {
    const attributes: Attributes = { 'http.response.status_code': response.statusCode };
    captured('response', responseHeaders, (name) => response.getHeader(name), attributes);
    span.setAttributes(attributes);
    // A 4xx is the client's, not the server's, failure.
    if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** The path of a request target, without its query. */
export const pathOf = (url: string | undefined): string => {
  const path = url ?? '';
  const query = path.indexOf('?');
  return query < 0 ? path : path.slice(0, query);
};

/**
 * `listener` with a server span around each request it serves (probes
 * excepted), ended when the response closes. The captured headers are read
 * from their variables now, so a refused one fails the start.
 */
export function traceRequests(listener: RequestListener, environment: NodeJS.ProcessEnv = process.env): RequestListener {
  const requestHeaders = capturedHeaders(CAPTURE_REQUEST_HEADERS, DEFAULT_REQUEST_HEADERS, environment);
  const responseHeaders = capturedHeaders(CAPTURE_RESPONSE_HEADERS, DEFAULT_RESPONSE_HEADERS, environment);
  return (request: TracedRequest, response) => {
    if (PROBE_PATHS.has(pathOf(request.url))) {
      context.with(suppressTracing(context.active()), () => listener(request, response));
      return;
    }
    const span = tracer.startSpan(request.method ?? 'GET', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
    if (span.isRecording()) span.setAttributes(requestAttributes(request, requestHeaders));
    const requestContext = trace.setSpan(ROOT_CONTEXT, span);
    request[REQUEST_CONTEXT] = requestContext;
    response.once('close', () => endRequestSpan(span, response, responseHeaders));
    context.with(requestContext, () => listener(request, response));
  };
}

/** `callback` run in the context of the request's span: for what is called from the request's or response's events. */
export function bindToRequest<A extends unknown[]>(request: IncomingMessage, callback: (...args: A) => void): (...args: A) => void {
  const requestContext = (request as TracedRequest)[REQUEST_CONTEXT];
  return requestContext === undefined ? callback : (...args) => context.with(requestContext, callback, undefined, ...args);
}
