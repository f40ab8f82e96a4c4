import { monitorHealth, startGrpcServer, unaryService, type DependencyCheck, type RunningGrpcServer } from '@gateway/lib/grpc';
import { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import type { RouterDeps } from './deps';
import { routerHandlers } from './rpc/handlers';

export const ROUTER_HEALTH_NAME = 'gateway.router.v1.RouterService';

export interface RouterServer {
  grpc: RunningGrpcServer;
  stop(): Promise<void>;
}

/**
 * Wires the Route handler and the health service onto one gRPC server. The
 * catalog, its only dependency, is loaded and checked before this is called,
 * so with no further checks the server is SERVING from its first answer.
 */
export async function startRouterServer(
  deps: RouterDeps,
  listen: { host: string; port: number },
  dependencyChecks: DependencyCheck[],
): Promise<RouterServer> {
  const implementation = unaryService(RouterServiceService, routerHandlers(deps), deps.logger);
  const monitor = monitorHealth([ROUTER_HEALTH_NAME], dependencyChecks, deps.logger);
  const grpc = await startGrpcServer({
    ...listen,
    services: [{ definition: RouterServiceService, implementation }],
    health: monitor.health,
  });
  await monitor.refresh();
  return {
    grpc,
    stop: async () => {
      monitor.stop();
      await grpc.shutdown();
    },
  };
}
