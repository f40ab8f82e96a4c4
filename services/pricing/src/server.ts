import { monitorHealth, startGrpcServer, unaryService, type DependencyCheck, type RunningGrpcServer } from '@gateway/lib/grpc';
import { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import type { PricingDeps } from './deps';
import { pricingHandlers } from './rpc/handlers';

export const PRICING_HEALTH_NAME = 'gateway.pricing.v1.PricingService';

export interface PricingServer {
  grpc: RunningGrpcServer;
  stop(): Promise<void>;
}

/**
 * Wires the Price and ListModels handlers and the health service onto one
 * gRPC server. The catalog, its only dependency, is loaded and checked before
 * this is called, so with no further checks the server is SERVING from its
 * first answer.
 */
export async function startPricingServer(
  deps: PricingDeps,
  listen: { host: string; port: number },
  dependencyChecks: DependencyCheck[],
): Promise<PricingServer> {
  const implementation = unaryService(PricingServiceService, pricingHandlers(deps), deps.logger);
  const monitor = monitorHealth([PRICING_HEALTH_NAME], dependencyChecks, deps.logger);
  const grpc = await startGrpcServer({
    ...listen,
    services: [{ definition: PricingServiceService, implementation }],
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
