import type { PromiseClient } from '@gateway/lib/grpc';
import type { Logger } from '@gateway/lib/logging';
import type { AgentServiceService } from '@gateway/proto/gen/gateway/agent/v1/agent';
import type { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { UsageServiceService } from '@gateway/proto/gen/gateway/usage/v1/usage';
import type { EdgeSettings } from './config';
import type { GatewayBackends } from './gateway/deps';
import type { ReadinessProbe } from './health/grpc-health';

/**
 * Everything the HTTP layer depends on, passed in: gRPC clients to separate
 * processes in the stack, or to in-process servers in the embedded mode.
 */
export interface EdgeDeps {
  auth: PromiseClient<typeof AuthServiceService>;
  /** The backends /readyz asks before it reports ready. */
  readiness: ReadinessProbe[];
  settings: EdgeSettings;
  logger: Logger;
  /** The backends of the chat-completions hot path beyond auth. */
  gateway: GatewayBackends;
  /** The agent API (/api/agent/*). */
  agent: PromiseClient<typeof AgentServiceService>;
  /** Usage reports, for the public and the Console usage routes. */
  usage: PromiseClient<typeof UsageServiceService>;
}
