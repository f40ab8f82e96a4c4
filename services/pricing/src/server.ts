import { grpcServiceName, serveService, type DependencyCheck, type ServiceServer } from '@gateway/lib/grpc';
import { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import type { PricingDeps } from './deps';
import { pricingHandlers } from './rpc/handlers';

export const PRICING_HEALTH_NAME = grpcServiceName(PricingServiceService);

/**
 * Price, ListModels and WatchPriceList on one gRPC server. The catalog, its
 * only dependency, is loaded and checked before this is called, so with no
 * further checks the server is SERVING from its first answer.
 */
export function startPricingServer(
  deps: PricingDeps,
  listen: { host: string; port: number },
  dependencyChecks: DependencyCheck[],
): Promise<ServiceServer<typeof PricingServiceService>> {
  return serveService({ definition: PricingServiceService, handlers: pricingHandlers(deps), dependencyChecks, listen, logger: deps.logger });
}
