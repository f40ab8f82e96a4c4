import { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { monitorHealth, startGrpcServer, unaryService, type DependencyCheck, type RunningGrpcServer } from '@gateway/lib/grpc';
import type { AuthDeps } from './deps';
import { identityHandlers } from './identity/handlers';
import { keyHandlers } from './keys/handlers';

export const AUTH_HEALTH_NAME = 'gateway.auth.v1.AuthService';

export interface AuthServer {
  grpc: RunningGrpcServer;
  stop(): Promise<void>;
}

/** Wires the RPC handlers and the health service onto one gRPC server. */
export async function startAuthServer(
  deps: AuthDeps,
  listen: { host: string; port: number },
  dependencyChecks: DependencyCheck[],
): Promise<AuthServer> {
  const monitor = monitorHealth([AUTH_HEALTH_NAME], dependencyChecks, deps.logger);
  const implementation = unaryService(AuthServiceService, { ...keyHandlers(deps), ...identityHandlers(deps) }, deps.logger);
  const grpc = await startGrpcServer({
    ...listen,
    services: [{ definition: AuthServiceService, implementation }],
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
