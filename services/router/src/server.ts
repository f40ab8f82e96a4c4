import { grpcServiceName, serveService, type DependencyCheck, type ServiceServer } from '@gateway/lib/grpc';
import { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import type { RouterDeps } from './deps';
import { routerHandlers } from './rpc/handlers';

export const ROUTER_HEALTH_NAME = grpcServiceName(RouterServiceService);

/**
 * Route and WatchRoutingPolicy on one gRPC server. The catalog, its only dependency, is loaded and
 * checked before this is called, so with no further checks the server is
 * SERVING from its first answer.
 */
export function startRouterServer(
  deps: RouterDeps,
  listen: { host: string; port: number },
  dependencyChecks: DependencyCheck[],
): Promise<ServiceServer<typeof RouterServiceService>> {
  return serveService({ definition: RouterServiceService, handlers: routerHandlers(deps), dependencyChecks, listen, logger: deps.logger });
}
