import { z } from 'zod';
import type { UnaryHandlers } from '@gateway/lib/grpc';
import type { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { AuthDeps } from '../deps';
import { messengerTypes, serverRegions, serverTiers } from '../db/tables/agent-instances';
import { idSchema, optionalIdSchema, parseRequest } from '../keys/request';
import { listOrganizationAgents } from './organization';
import { findUserAgent, toAgentRecordMessage } from './records';
import { updateAgentSettings } from './settings';
import { storableText } from '@gateway/lib/storable-text';

type AgentHandlers = Pick<UnaryHandlers<typeof AuthServiceService>, 'getUserAgent' | 'updateAgentSettings' | 'listOrganizationAgents'>;

const oneOf = <const Values extends readonly [string, ...string[]]>(values: Values) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

const getUserAgentSchema = z.object({ userId: idSchema, agentId: optionalIdSchema });
const listOrganizationAgentsSchema = z.object({ actorUserId: idSchema, organizationId: idSchema });

const updateSettingsSchema = z.object({
  userId: idSchema,
  agentId: idSchema,
  aiModel: storableText().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
  messengerType: oneOf(messengerTypes).optional(),
  serverTier: oneOf(serverTiers).optional(),
  serverRegion: oneOf(serverRegions).optional(),
  // Never echoed: the messages say what is wrong, not what was sent.
  providerKey: z.string().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters').optional(),
});

/** The agent billing record: the agent API's (the user's record, its settings) and the Console's (the organization's records). */
export function agentHandlers({ db, settings, invalidator }: AuthDeps): AgentHandlers {
  return {
    getUserAgent: async (request) => {
      const { userId, agentId } = parseRequest(getUserAgentSchema, request);
      return { agent: toAgentRecordMessage(await findUserAgent(db, userId, agentId)) };
    },

    updateAgentSettings: async (request) => {
      const { userId, agentId, ...change } = parseRequest(updateSettingsSchema, request);
      const { agent, changed } = await updateAgentSettings(db, settings.secretsKey, userId, agentId, change);
      // Credentials bound to the record (keys, legacy ones) inherit its model and mode: edge must not keep the old ones.
      if (changed.length > 0) await invalidator.invalidateOrganization(agent.organization_id);
      return { agent: toAgentRecordMessage(agent), changed };
    },

    listOrganizationAgents: async (request) => {
      const { actorUserId, organizationId } = parseRequest(listOrganizationAgentsSchema, request);
      return { agents: await listOrganizationAgents(db, { userId: actorUserId, organizationId }) };
    },
  };
}
