import type { Express } from 'express';
import { InferenceMode, type OrganizationAgent } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { orgParamsSchema, type OrganizationAgentJson, type OrganizationAgents } from '../contract';
import type { EdgeDeps } from '../deps';
import { sessionOf } from '../http/locals';
import { parseInput } from '../http/validation';
import { requireSession } from '../identity/session';
import { present } from '../mappers';

function organizationAgentJson({ agent, ownerEmail }: OrganizationAgent): OrganizationAgentJson {
  const record = present(agent, 'agent');
  return {
    id: record.id,
    owner_email: ownerEmail === '' ? null : ownerEmail,
    status: record.status,
    ai_model: record.aiModel,
    plan_tier: record.planTier,
    mode: record.mode === InferenceMode.INFERENCE_MODE_BYOK ? 'byok' : 'managed',
    created_at: present(record.createdAt, 'created_at').toISOString(),
  };
}

/**
 * `GET /api/v1/orgs/{org}/agents`: the organization's agent records, newest
 * first, so the Console can offer one to bind a new key to (docs/api.md#api-keys). Any
 * member, like the key list that names them; a non-member gets 404.
 */
export function registerOrganizationAgentRoutes(app: Express, { auth, settings }: EdgeDeps): void {
  app.get('/api/v1/orgs/:org/agents', requireSession(settings.accessTokenSecret), async (req, res) => {
    const { org } = parseInput(orgParamsSchema, req.params, 'path');
    const { agents } = await auth.listOrganizationAgents({ actorUserId: sessionOf(res).userId, organizationId: org });
    res.json({ agents: agents.map(organizationAgentJson) } satisfies OrganizationAgents);
  });
}
