import type { PrincipalKind, Principal } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { agentAttribution, type AttributedAgent } from '../agents/attribution';

/**
 * What a legacy credential grants (docs/api.md#authentication): inference only,
 * attributed to its agent record, measured but never blocked by the allowance.
 */
export function legacyPrincipal(
  kind: PrincipalKind.PRINCIPAL_KIND_GATEWAY_TOKEN | PrincipalKind.PRINCIPAL_KIND_AGENT_SECRET,
  agent: AttributedAgent & { organization_id: string },
): Principal {
  return {
    kind,
    organizationId: agent.organization_id,
    apiKeyId: '',
    scopes: ['inference'],
    enforceQuota: false,
    ...agentAttribution(agent),
  };
}
