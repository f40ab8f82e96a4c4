import { context, INVALID_SPAN_CONTEXT, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { carriedGetter, carriedSetter, type CarriedMetadata } from './carried-metadata';

/**
 * The trace of every unary call, on both sides, kept by lib's client and
 * server themselves: a span named `grpc.<service>/<method>` with the
 * OpenTelemetry RPC attributes, the caller's span context carried in the
 * call's metadata (W3C `traceparent`), and the server's handler run inside
 * it, so its logs and its own calls belong to the request's trace. (This is
 * what OpenTelemetry's gRPC instrumentation did, which also rewrapped each
 * call's objects and emitters and cost a tenth of a small service's CPU.)
 */
export interface CallSpans {
  /** Client side: a span for one call, whose context goes out in `metadata`. */
  startClient(metadata: CarriedMetadata): Span;
  /** Server side: the call's span, child of the caller's span context found in `metadata`, and the context to run its handler in. */
  startServer(metadata: CarriedMetadata): { span: Span; context: Context };
}

const tracer = trace.getTracer('gateway-grpc');

/** The span a call is given where no span can be recorded: ending it or setting its attributes does nothing. */
const UNRECORDED = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

let recordable = true;

/**
 * Whether this process can record a span at all (startTelemetry says: not
 * without somewhere to export them). Where it cannot, a call makes no span of
 * its own on either side: the caller's span context goes out as it is and the
 * handler runs inside it, so the server's logs still carry the caller's trace
 * id (the request id). The spans made otherwise were never recorded, yet
 * making them, with their context, cost about a third of lib's time around a
 * streamed record (docs/performance.md, "lib's own work around each streamed call").
 */
export function setCallSpansRecordable(canRecord: boolean): void {
  recordable = canRecord;
}

/** `gateway.auth.v1.AuthService` and `Authenticate`, from `/gateway.auth.v1.AuthService/Authenticate`. */
export function rpcAttributes(methodPath: string): Attributes {
  const slash = methodPath.lastIndexOf('/');
  return { 'rpc.system': 'grpc', 'rpc.service': methodPath.slice(1, slash), 'rpc.method': methodPath.slice(slash + 1) };
}

/** The span names and attributes of one method, built once; `peer` is the client's `host:port`. */
export function callSpans(methodPath: string, peer?: string): CallSpans {
  const name = `grpc.${methodPath.slice(1)}`;
  const colon = peer?.lastIndexOf(':') ?? -1;
  const peerAttributes: Attributes = peer && colon > 0 ? { 'server.address': peer.slice(0, colon), 'server.port': Number(peer.slice(colon + 1)) } : {};
  const clientAttributes: Attributes = { ...rpcAttributes(methodPath), ...peerAttributes };
  const serverAttributes = rpcAttributes(methodPath);
  // The attributes are set only on a span that is recorded: the SDK copies and checks those given
  // to startSpan on every call, recorded or not (no sampler of ours reads them).
  const start = (kind: SpanKind, attributes: Attributes, parent: Context) => {
    const span = tracer.startSpan(name, { kind }, parent);
    if (span.isRecording()) span.setAttributes(attributes);
    return span;
  };
  return {
    startClient: (metadata) => {
      const parent = context.active();
      if (!recordable) {
        propagation.inject(parent, metadata, carriedSetter);
        return UNRECORDED;
      }
      const span = start(SpanKind.CLIENT, clientAttributes, parent);
      propagation.inject(trace.setSpan(parent, span), metadata, carriedSetter);
      return span;
    },
    startServer: (metadata) => {
      const caller = propagation.extract(ROOT_CONTEXT, metadata, carriedGetter);
      if (!recordable) return { span: UNRECORDED, context: caller };
      const span = start(SpanKind.SERVER, serverAttributes, caller);
      return { span, context: trace.setSpan(caller, span) };
    },
  };
}

/** Ends a call's span with its gRPC status code (0 is OK), marked as an error otherwise. */
export function endCallSpan(span: Span, statusCode: number): void {
  span.setAttribute('rpc.grpc.status_code', statusCode);
  if (statusCode !== 0) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
