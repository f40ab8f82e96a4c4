import { grpcServiceName, serveService, type DependencyCheck, type ServiceServer } from '@gateway/lib/grpc';
import { AgentServiceService } from '@gateway/proto/gen/gateway/agent/v1/agent';
import { runWorkflow } from './automation/run';
import { startScheduler, type Scheduler } from './automation/scheduler';
import type { AgentDeps } from './deps';
import { agentHandlers } from './rpc/handlers';

export const AGENT_HEALTH_NAME = grpcServiceName(AgentServiceService);

export interface AgentServer extends ServiceServer {
  /** Present when this replica runs the scheduler. */
  scheduler: Scheduler | undefined;
}

/**
 * The agent API on one gRPC server, SERVING while its dependencies answer,
 * and (unless disabled) the workflow scheduler, which every replica runs:
 * row locking lets each due workflow run once whichever replica takes it.
 */
export async function startAgentServer(
  deps: AgentDeps,
  listen: { host: string; port: number },
  dependencyChecks: DependencyCheck[],
  scheduler: { enabled: boolean; intervalMs: number },
): Promise<AgentServer> {
  const server = await serveService({ definition: AgentServiceService, handlers: agentHandlers(deps), dependencyChecks, listen, logger: deps.logger });
  const running = scheduler.enabled
    ? startScheduler(deps.db, (workflow) => runWorkflow(deps, workflow), deps.logger, scheduler.intervalMs)
    : undefined;
  return {
    ...server,
    scheduler: running,
    stop: async (graceMs) => {
      await running?.stop();
      await server.stop(graceMs);
    },
  };
}
