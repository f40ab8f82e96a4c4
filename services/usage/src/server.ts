import { grpcServiceName, serveService, type DependencyCheck, type ServiceServer } from '@gateway/lib/grpc';
import { UsageServiceService } from '@gateway/proto/gen/gateway/usage/v1/usage';
import type { UsageDeps } from './deps';
import { usageHandlers } from './rpc/handlers';

export { checkTracesReadable, TRACES_SCHEMA, type TracesDatabase } from './db/traces';
export type { UsageDeps, UsageSettings } from './deps';
export { settingsFrom, usageSettingsShape } from './config';

export const USAGE_HEALTH_NAME = grpcServiceName(UsageServiceService);

/** GetUsage on one gRPC server, SERVING while the read-only role can read the traces. */
export function startUsageServer(deps: UsageDeps, listen: { host: string; port: number }, dependencyChecks: DependencyCheck[]): Promise<ServiceServer<typeof UsageServiceService>> {
  return serveService({ definition: UsageServiceService, handlers: usageHandlers(deps), dependencyChecks, listen, logger: deps.logger });
}
