import { z } from 'zod';

/** `GET /api/v1/orgs/{org}/agents`: the organization's agent records, for binding a key to one. */
export const organizationAgentSchema = z.object({
  id: z.string(),
  /** The owner's email; null when the record has none. */
  owner_email: z.string().nullable(),
  status: z.string(),
  ai_model: z.string(),
  plan_tier: z.string(),
  mode: z.enum(['managed', 'byok']),
  created_at: z.string(),
});
export type OrganizationAgentJson = z.output<typeof organizationAgentSchema>;

export const organizationAgentsSchema = z.object({ agents: z.array(organizationAgentSchema) });
export type OrganizationAgents = z.output<typeof organizationAgentsSchema>;
