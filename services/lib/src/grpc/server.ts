import {
  Server,
  ServerCredentials,
  type Metadata,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from '@grpc/grpc-js';
import type { HealthImplementation } from 'grpc-health-check';
import { context } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { errorMapping, toDomainError, type DomainError } from '../errors';
import { callTimer } from './call-metrics';
import { callSpans, endCallSpan } from './call-spans';
import { handlerContext } from './carried-metadata';
import { monitorHealth, type DependencyCheck } from './health';
import { addReflection } from './reflection';
import { answerCalls, type ServeCall } from './call-streams';
import { grpcServiceName, type CallRequestOf, type CallResponseOf, type RequestOf, type ResponseOf, type RpcServiceDefinition, type UnaryServiceDefinition } from './methods';
import { toGrpcError } from './status';

export interface CallContext {
  metadata: Metadata;
  /** Client's deadline, if it sent one. */
  deadline: Date | number;
}


/** One async function per RPC of a ts-proto service definition. */
export type UnaryHandlers<D> = {
  [K in keyof D]: (request: RequestOf<D[K]>, context: CallContext) => Promise<ResponseOf<D[K]>>;
};

export interface StreamContext extends CallContext {
  /** Aborted when the caller cancels the stream or goes away: the handler's iterable must then end. */
  signal: AbortSignal;
}

/** A server-streaming RPC: every value the iterable yields is sent, and the stream ends when it does. */
export type StreamHandler<M> = (request: RequestOf<M>, context: StreamContext) => AsyncIterable<ResponseOf<M>>;

/** The handler of the calls a call-stream method carries: each answered as a unary call would be (call-streams.ts). */
export type CallStreamHandler<M> = (request: CallRequestOf<M>, context: CallContext) => Promise<CallResponseOf<M>>;

/** Handlers of a service with unary, server-streaming and call-stream RPCs. */
export type ServiceHandlers<D> = {
  [K in keyof D]: D[K] extends { requestStream: true }
    ? CallStreamHandler<D[K]>
    : D[K] extends { responseStream: true }
      ? StreamHandler<D[K]>
      : UnaryHandlers<Pick<D, K>>[K];
};

/** A unary handler as the adapters below see it, whatever its method's types. */
export type UnaryFn = (request: unknown, context: CallContext) => Promise<unknown>;

/**
 * One unary call of `handler` as a server answers it: in its server span (the
 * caller's trace from the metadata), timed, every thrown error turned into the
 * mapped status. Unexpected errors are logged here, once, and reach the caller
 * only as `internal`. Used for unary RPCs and for the calls a call stream carries.
 */
function callServer(handler: UnaryFn, path: string, logger: Logger): ServeCall {
  const timer = callTimer('server', path);
  const spans = callSpans(path);
  const failed = reportFailure(logger, path);
  return (request, metadata, deadline, reply) => {
    const started = performance.now();
    const { span, context: callContext } = spans.startServer(metadata);
    // The handler, and what follows it, in the caller's trace: its logs and its own calls carry the trace id.
    context.with(callContext, () =>
      handler(request, handlerContext(metadata, deadline)).then(
        (response) => {
          reply(null, response);
          timer.succeeded(started);
          endCallSpan(span, 0);
        },
        (error: unknown) => {
          const domain = failed(error);
          timer.failed(started, domain);
          endCallSpan(span, errorMapping[domain.kind].grpc);
          reply(toGrpcError(domain));
        },
      ),
    );
  };
}

/** Adapts async handlers to grpc-js unary methods (callServer). */
export function unaryService<D extends UnaryServiceDefinition>(
  definition: D,
  handlers: UnaryHandlers<D>,
  logger: Logger,
): UntypedServiceImplementation {
  const implementation: UntypedServiceImplementation = {};
  for (const name of Object.keys(definition) as Array<keyof D & string>) {
    implementation[name] = unaryMethod(callServer(handlers[name] as UnaryFn, definition[name]?.path ?? `/unknown/${name}`, logger));
  }
  return implementation;
}

/** A served call as grpc-js's unary method. */
function unaryMethod(serve: ServeCall) {
  return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) =>
    serve(call.request, call.metadata, call.getDeadline(), (error, response) => (error ? callback(error) : callback(null, response)));
}

/** Logs a handler's failure once (unexpected: error; refused with a reason: info) and gives its domain error. */
export function reportFailure(logger: Logger, path: string): (error: unknown) => DomainError {
  return (error) => {
    const domain = toDomainError(error);
    if (domain.kind === 'internal') logger.error({ err: error, rpc: path }, 'rpc failed');
    else if (domain.internalReason) logger.info({ rpc: path, reason: domain.internalReason }, 'rpc rejected');
    return domain;
  };
}

/**
 * The server streams open right now, each with its way to end: a draining
 * server ends them (their callers see the stream end and open it again,
 * elsewhere), else a long-lived stream would hold the drain to its timeout.
 * A call stream ends once the calls it started are answered.
 */
export type OpenStreams = Set<AbortController>;

/** Sends what a stream handler yields until it ends, the caller cancels, the server drains, or it throws (the mapped status). */
function streamingMethod<M>(handler: StreamHandler<M>, path: string, logger: Logger, open: OpenStreams) {
  const failed = reportFailure(logger, path);
  return (call: ServerWritableStream<RequestOf<M>, unknown>) => {
    const abort = new AbortController();
    open.add(abort);
    call.on('cancelled', () => abort.abort());
    const send = async () => {
      for await (const response of handler(call.request, { metadata: call.metadata, deadline: call.getDeadline(), signal: abort.signal })) {
        if (call.cancelled) return;
        call.write(response);
      }
      call.end();
    };
    send()
      .catch((error: unknown) => {
        if (!call.cancelled) call.emit('error', toGrpcError(failed(error)));
      })
      .finally(() => open.delete(abort));
  };
}

/** Unary, server-streaming and call-stream handlers adapted to grpc-js, with the same error mapping. */
export function rpcService<D extends RpcServiceDefinition>(
  definition: D,
  handlers: ServiceHandlers<D>,
  logger: Logger,
  open: OpenStreams = new Set(),
): UntypedServiceImplementation {
  const implementation: UntypedServiceImplementation = {};
  for (const name of Object.keys(definition) as Array<keyof D & string>) {
    const method = definition[name];
    if (!method) continue;
    if (method.requestStream) implementation[name] = answerCalls(callServer(handlers[name] as unknown as UnaryFn, method.path, logger), open);
    else if (method.responseStream) implementation[name] = streamingMethod(handlers[name] as StreamHandler<typeof method>, method.path, logger, open);
    else implementation[name] = unaryMethod(callServer(handlers[name] as UnaryFn, method.path, logger));
  }
  return implementation;
}

export interface GrpcServerOptions {
  host?: string;
  port: number;
  /** How long a connection serves new calls before the server ends it; MAX_CONNECTION_AGE_MS unless set. */
  maxConnectionAgeMs?: number;
  services: Array<{ definition: ServiceDefinition; implementation: UntypedServiceImplementation }>;
  health: HealthImplementation;
}

export interface RunningGrpcServer {
  /** The bound port (useful with port 0). */
  port: number;
  server: Server;
  /** Stops accepting calls and lets in-flight ones finish, up to graceMs. */
  shutdown(graceMs?: number): Promise<void>;
}

/**
 * A client resolving a headless Service by DNS learns of new pods only when
 * it resolves again, which grpc-js does when a connection ends: ending each
 * connection after this long (a GOAWAY: the client reconnects at once, calls
 * in flight finish on the old connection) lets the pods a scale-up adds take
 * their share within it. That the calls in flight do finish takes the fix
 * in patches/ to grpc-js (docs/decisions.md, "Connections that end").
 */
const MAX_CONNECTION_AGE_MS = 60_000;

export async function startGrpcServer({
  host = '127.0.0.1',
  port,
  services,
  health,
  maxConnectionAgeMs = MAX_CONNECTION_AGE_MS,
}: GrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new Server({
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    // Channelz statistics cost time on every call and nothing here reads them.
    'grpc.enable_channelz': 0,
    'grpc.max_connection_age_ms': maxConnectionAgeMs,
  });
  for (const { definition, implementation } of services) server.addService(definition, implementation);
  health.addToServer(server);
  addReflection(server, services.map(({ definition }) => definition));
  const boundPort = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  return {
    port: boundPort,
    server,
    shutdown: (graceMs = 5000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}

export interface ServiceServer<D extends RpcServiceDefinition = RpcServiceDefinition> {
  grpc: RunningGrpcServer;
  /** The handlers behind the port, for callers in the same process (lib's in-process transport). */
  handlers: ServiceHandlers<D>;
  /** Stops health probing, then the server: in-flight calls finish first, for up to graceMs. */
  stop(graceMs?: number): Promise<void>;
}

export interface ServeOptions<D extends RpcServiceDefinition> {
  definition: D;
  handlers: ServiceHandlers<D>;
  /** What must answer for the service to report SERVING. */
  dependencyChecks: DependencyCheck[];
  listen: Pick<GrpcServerOptions, 'host' | 'port' | 'maxConnectionAgeMs'>;
  logger: Logger;
}

/**
 * One service on its own gRPC server, with a `grpc.health.v1` that reports
 * its real dependency state under both the overall and the service's name.
 */
export async function serveService<D extends RpcServiceDefinition>({
  definition,
  handlers,
  dependencyChecks,
  listen,
  logger,
}: ServeOptions<D>): Promise<ServiceServer<D>> {
  const monitor = monitorHealth([grpcServiceName(definition)], dependencyChecks, logger);
  const streams: OpenStreams = new Set();
  const grpc = await startGrpcServer({
    ...listen,
    services: [{ definition: definition as unknown as ServiceDefinition, implementation: rpcService(definition, handlers, logger, streams) }],
    health: monitor.health,
  });
  await monitor.refresh();
  return {
    grpc,
    handlers,
    stop: async (graceMs) => {
      monitor.stop();
      // No new calls from here; the streams open are ended so that the in-flight unary calls alone decide how long this takes.
      const shutdown = grpc.shutdown(graceMs);
      for (const stream of streams) stream.abort();
      await shutdown;
    },
  };
}
