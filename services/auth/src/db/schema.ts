import type { AgentInstancesTable } from './tables/agent-instances';
import type { ApiKeysTable } from './tables/api-keys';
import type { KeyEventsTable } from './tables/key-events';
import type { MembershipsTable } from './tables/memberships';
import type { OrganizationsTable } from './tables/organizations';
import type { PlatformAgentSecretsTable } from './tables/platform-agent-secrets';
import type { RefreshTokensTable } from './tables/refresh-tokens';
import type { UsersTable } from './tables/users';

/** Postgres schema owned by the auth service. */
export const AUTH_SCHEMA = 'auth';

export interface AuthDatabase {
  organizations: OrganizationsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  agent_instances: AgentInstancesTable;
  api_keys: ApiKeysTable;
  key_events: KeyEventsTable;
  refresh_tokens: RefreshTokensTable;
  platform_agent_secrets: PlatformAgentSecretsTable;
}
