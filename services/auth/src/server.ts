import { grpcServiceName, serveService, type DependencyCheck, type ServiceServer } from '@gateway/lib/grpc';
import { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { agentHandlers } from './agents/handlers';
import type { AuthDeps } from './deps';
import { identityHandlers } from './identity/handlers';
import { keyHandlers } from './keys/handlers';

export const AUTH_HEALTH_NAME = grpcServiceName(AuthServiceService);

/** The key, identity and agent-record handlers on one gRPC server, SERVING while Postgres and Redis answer. */
export function startAuthServer(
  deps: AuthDeps,
  listen: { host: string; port: number },
  dependencyChecks: DependencyCheck[],
): Promise<ServiceServer<typeof AuthServiceService>> {
  return serveService({
    definition: AuthServiceService,
    handlers: { ...keyHandlers(deps), ...identityHandlers(deps), ...agentHandlers(deps) },
    dependencyChecks,
    listen,
    logger: deps.logger,
  });
}
