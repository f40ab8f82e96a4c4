import type { BoundToJson, OrganizationAgentJson } from '@gateway/edge/contract';

/** How an agent record is named to people: its model, owner and the start of its id. */
export function agentLabel(agent: OrganizationAgentJson): string {
  const owner = agent.owner_email ? ` · ${agent.owner_email}` : '';
  return `Agent ${agent.id.slice(0, 8)} · ${agent.ai_model}${owner}`;
}

/** docs/api.md#api-keys: an unbound key is shown as "Organization". */
export function boundToLabel(boundTo: BoundToJson, agents: Map<string, OrganizationAgentJson>): string {
  if (boundTo.type === 'organization') return 'Organization';
  const agent = agents.get(boundTo.agent_id);
  return agent ? agentLabel(agent) : `Agent ${boundTo.agent_id.slice(0, 8)}`;
}
