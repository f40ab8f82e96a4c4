import {
  Server,
  ServerCredentials,
  type Metadata,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from '@grpc/grpc-js';
import type { HealthImplementation } from 'grpc-health-check';
import { context } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { errorMapping, toDomainError } from '../errors';
import { callTimer } from './call-metrics';
import { callSpans, endCallSpan } from './call-spans';
import { monitorHealth, type DependencyCheck } from './health';
import type { RequestOf, ResponseOf, UnaryServiceDefinition } from './methods';
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

/**
 * Adapts async handlers to grpc-js, turning every thrown error into the
 * mapped status. Unexpected errors are logged here, once, and reach the
 * caller only as `internal`.
 */
export function unaryService<D extends UnaryServiceDefinition>(
  definition: D,
  handlers: UnaryHandlers<D>,
  logger: Logger,
): UntypedServiceImplementation {
  const implementation: UntypedServiceImplementation = {};
  for (const name of Object.keys(definition) as Array<keyof D & string>) {
    const handler = handlers[name];
    const path = definition[name]?.path ?? `/unknown/${name}`;
    const timer = callTimer('server', path);
    const spans = callSpans(path);
    implementation[name] = (call: ServerUnaryCall<RequestOf<D[typeof name]>, unknown>, callback: sendUnaryData<unknown>) => {
      const started = performance.now();
      const { span, context: callContext } = spans.startServer(call.metadata);
      // The handler, and what follows it, in the caller's trace: its logs and its own calls carry the trace id.
      context.with(callContext, () =>
        handler(call.request, { metadata: call.metadata, deadline: call.getDeadline() }).then(
          (response) => {
            callback(null, response);
            timer.succeeded(started);
            endCallSpan(span, 0);
          },
          (error: unknown) => {
            const domain = toDomainError(error);
            timer.failed(started, domain);
            endCallSpan(span, errorMapping[domain.kind].grpc);
            if (domain.kind === 'internal') logger.error({ err: error, rpc: path }, 'rpc failed');
            else if (domain.internalReason) logger.info({ rpc: path, reason: domain.internalReason }, 'rpc rejected');
            callback(toGrpcError(domain));
          },
        ),
      );
    };
  }
  return implementation;
}

export interface GrpcServerOptions {
  host?: string;
  port: number;
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
 * connection after this long (the client reconnects at once, calls in
 * flight finish) lets the pods a scale-up adds take their share within it.
 */
const MAX_CONNECTION_AGE_MS = 60_000;

export async function startGrpcServer({ host = '127.0.0.1', port, services, health }: GrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new Server({
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    // Channelz statistics cost time on every call and nothing here reads them.
    'grpc.enable_channelz': 0,
    'grpc.max_connection_age_ms': MAX_CONNECTION_AGE_MS,
  });
  for (const { definition, implementation } of services) server.addService(definition, implementation);
  health.addToServer(server);
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

export interface ServiceServer {
  grpc: RunningGrpcServer;
  /** Stops health probing, then the server: in-flight calls finish first, for up to graceMs. */
  stop(graceMs?: number): Promise<void>;
}

export interface ServeOptions<D extends UnaryServiceDefinition> {
  definition: D;
  handlers: UnaryHandlers<D>;
  /** What must answer for the service to report SERVING. */
  dependencyChecks: DependencyCheck[];
  listen: { host: string; port: number };
  logger: Logger;
}

/** `gateway.auth.v1.AuthService` from a method path `/gateway.auth.v1.AuthService/Authenticate`. */
export function grpcServiceName(definition: UnaryServiceDefinition): string {
  const path = Object.values(definition)[0]?.path ?? '';
  return path.slice(1, path.lastIndexOf('/'));
}

/**
 * One service on its own gRPC server, with a `grpc.health.v1` that reports
 * its real dependency state under both the overall and the service's name.
 */
export async function serveService<D extends UnaryServiceDefinition>({
  definition,
  handlers,
  dependencyChecks,
  listen,
  logger,
}: ServeOptions<D>): Promise<ServiceServer> {
  const monitor = monitorHealth([grpcServiceName(definition)], dependencyChecks, logger);
  const grpc = await startGrpcServer({
    ...listen,
    services: [{ definition: definition as unknown as ServiceDefinition, implementation: unaryService(definition, handlers, logger) }],
    health: monitor.health,
  });
  await monitor.refresh();
  return {
    grpc,
    stop: async (graceMs) => {
      monitor.stop();
      await grpc.shutdown(graceMs);
    },
  };
}
