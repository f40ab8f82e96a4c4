import type { ServiceDefinition } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { createPromiseClient, type PromiseClient } from '../../src/grpc/client';
import { HealthImplementation } from '../../src/grpc/health';
import { createInProcessClient } from '../../src/grpc/in-process';
import type { RpcServiceDefinition } from '../../src/grpc/methods';
import { rpcService, startGrpcServer, type ServiceHandlers } from '../../src/grpc/server';

/** A client of handlers, over one of lib's transports, and how to stop it. */
export interface RunningTransport<D extends RpcServiceDefinition> {
  client: PromiseClient<D>;
  /** The `host:port` a gRPC client calls; undefined in the same process. */
  peer?: { address: string; port: number };
  stop(): Promise<void>;
}

/** How a client reaches a service's handlers: over a gRPC hop, or in the same process (the embedded mode). */
export interface Transport {
  name: string;
  start<D extends RpcServiceDefinition>(definition: D, handlers: ServiceHandlers<D>, logger: Logger): Promise<RunningTransport<D>>;
}

export const grpcTransport: Transport = {
  name: 'gRPC',
  async start(definition, handlers, logger) {
    // The typed definition is grpc-js's untyped one underneath, as lib's serveService treats it.
    const server = await startGrpcServer({ port: 0, services: [{ definition: definition as unknown as ServiceDefinition, implementation: rpcService(definition, handlers, logger) }], health: new HealthImplementation() });
    const client = createPromiseClient(definition, { serviceName: 'auth', address: `127.0.0.1:${server.port}`, deadlineMs: 5000 });
    return {
      client,
      peer: { address: '127.0.0.1', port: server.port },
      stop: async () => {
        client.close();
        await server.shutdown(1000);
      },
    };
  },
};

export const inProcessTransport: Transport = {
  name: 'the in-process transport',
  start: (definition, handlers, logger) =>
    Promise.resolve({ client: createInProcessClient(definition, handlers, { serviceName: 'auth', deadlineMs: 5000, logger }), stop: () => Promise.resolve() }),
};
