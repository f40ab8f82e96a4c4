import type { Kysely } from 'kysely';
import type { PromiseClient } from '@gateway/lib/grpc';
import type { Logger } from '@gateway/lib/logging';
import type { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { LedgerServiceService } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import type { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import type { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import type { GatewayClient } from './chat/gateway';
import type { AgentSettings } from './config';
import type { AgentDatabase } from './db/schema';
import type { HealthProbe } from './status/health';

/**
 * Everything the agent logic depends on, passed in: real Postgres and gRPC
 * clients to separate processes in the stack, PGlite and in-process servers
 * in the embedded mode.
 */
export interface AgentDeps {
  db: Kysely<AgentDatabase>;
  auth: PromiseClient<typeof AuthServiceService>;
  ledger: PromiseClient<typeof LedgerServiceService>;
  router: PromiseClient<typeof RouterServiceService>;
  pricing: PromiseClient<typeof PricingServiceService>;
  /** Chat completions through edge's gateway, as principal agent_secret. */
  gateway: GatewayClient;
  /** What a status with `include=health` asks. */
  healthProbes: HealthProbe[];
  settings: AgentSettings;
  logger: Logger;
}
