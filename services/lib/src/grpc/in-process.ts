import { Metadata, status } from '@grpc/grpc-js';
import { context } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { DomainError, errorMapping } from '../errors';
import { callTimer } from './call-metrics';
import { callSpans, endCallSpan } from './call-spans';
import { handlerContext, type CarriedMetadata } from './carried-metadata';
import type { CallSettings, PromiseClient, StreamSettings } from './client';
import type { RpcServiceDefinition } from './methods';
import { reportFailure, type ServiceHandlers, type StreamContext, type UnaryFn } from './server';

export interface InProcessClientOptions {
  /** Name used in error messages, as for the gRPC client. */
  serviceName: string;
  /** Deadline applied to every call that does not set its own. */
  deadlineMs: number;
  /** The service's own logger: a handler's failure is logged there, once, as its gRPC server would. */
  logger: Logger;
}

type StreamFn = (request: unknown, context: StreamContext) => AsyncIterable<unknown>;

/**
 * What a caller receives of a handler's error across a gRPC hop: the kind,
 * the public message, the field and retry-after, nothing else (no internal
 * reason, no cause), so the two transports answer the same.
 */
function asReceived(error: DomainError): DomainError {
  return new DomainError(error.kind, error.message, {
    ...(error.field === undefined ? {} : { field: error.field }),
    ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
  });
}

/**
 * The client interface of createPromiseClient, served by calling a service's
 * handlers in this process: no serialization, no socket. Same deadlines (a
 * handler still running at the deadline is answered `timeout`), metadata
 * passed to the handler, the same error mapping, the same call metrics, and
 * the same two spans (client and server, the handler run inside the server
 * span, the caller's trace carried in the metadata as over a gRPC hop), so a
 * request's trace reads the same in the embedded mode as in the stack.
 * Requests and responses are shared objects, not copies: neither side may
 * change one after the call.
 */
export function createInProcessClient<D extends RpcServiceDefinition>(
  definition: D,
  handlers: ServiceHandlers<D>,
  { serviceName, deadlineMs, logger }: InProcessClientOptions,
): PromiseClient<D> {
  const methods: Record<string, unknown> = { isConnected: () => true, close: () => undefined };
  for (const name of Object.keys(definition)) {
    const method = definition[name];
    if (!method) continue;
    const failed = reportFailure(logger, method.path);
    // A call-stream method's calls are answered one by one, as unary calls are.
    if (method.responseStream && !method.requestStream) {
      const handler = handlers[name] as StreamFn;
      methods[name] = (request: unknown, settings: StreamSettings = {}) => streamFrom(handler, request, settings, failed);
      continue;
    }
    const handler = handlers[name] as UnaryFn;
    const metrics = callTimer('client', method.path);
    const spans = callSpans(method.path);
    const timeout = () => new DomainError('timeout', `The ${serviceName} service did not answer in time.`);
    methods[name] = (request: unknown, settings: CallSettings = {}) => {
      const started = performance.now();
      const callDeadlineMs = settings.deadlineMs ?? deadlineMs;
      // Plain strings unless the caller gave a Metadata: a handler is given one only when it reads it.
      const metadata: CarriedMetadata = settings.metadata ?? {};
      const clientSpan = spans.startClient(metadata);
      const served = spans.startServer(metadata);
      return new Promise((resolve, reject) => {
        let answered = false;
        const deadline = setTimeout(() => {
          answered = true;
          const error = timeout();
          metrics.failed(started, error);
          endCallSpan(clientSpan, status.DEADLINE_EXCEEDED);
          reject(error);
        }, callDeadlineMs);
        /** The server span ends when the handler does; the client's when the caller is answered (the deadline may come first). */
        const finish = (statusCode: number, settle: () => void) => {
          endCallSpan(served.span, statusCode);
          clearTimeout(deadline);
          if (answered) return;
          endCallSpan(clientSpan, statusCode);
          settle();
        };
        let answer: Promise<unknown>;
        try {
          answer = context.with(served.context, () => handler(request, handlerContext(metadata, Date.now() + callDeadlineMs)));
        } catch (error) {
          answer = Promise.reject(error);
        }
        answer.then(
          (response) =>
            finish(0, () => {
              metrics.succeeded(started);
              resolve(response);
            }),
          (error: unknown) => {
            // Logged inside the server span, as the gRPC server logs a handler's failure.
            const domain = context.with(served.context, () => failed(error));
            finish(errorMapping[domain.kind].grpc, () => {
              metrics.failed(started, domain);
              reject(asReceived(domain));
            });
          },
        );
      });
    };
  }
  return methods as PromiseClient<D>;
}

/** A stream handler's values as the caller's iterable: ended by the handler or by the caller (abort, or no longer reading). */
async function* streamFrom(handler: StreamFn, request: unknown, settings: StreamSettings, failed: (error: unknown) => DomainError): AsyncIterable<unknown> {
  if (settings.signal?.aborted) return;
  const abort = new AbortController();
  const forward = () => abort.abort();
  settings.signal?.addEventListener('abort', forward, { once: true });
  try {
    for await (const response of handler(request, { metadata: settings.metadata ?? new Metadata(), deadline: Infinity, signal: abort.signal })) {
      yield response;
      // Checked before asking the handler for more: it may be waiting for what comes next, which the caller no longer wants.
      if (abort.signal.aborted) return;
    }
  } catch (error) {
    if (abort.signal.aborted) return;
    throw asReceived(failed(error));
  } finally {
    settings.signal?.removeEventListener('abort', forward);
    abort.abort();
  }
}
