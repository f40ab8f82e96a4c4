import { z } from 'zod';
import { DomainError } from '@gateway/lib/errors';
import type { PromiseClient } from '@gateway/lib/grpc';
import type { Actor } from '@gateway/proto/gen/gateway/agent/v1/agent';
import type { AgentRecord, AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';

/** The acting user, as edge's verified session names them, and optionally one of their agent records. */
export const actorSchema = z.object(
  {
    userId: z.guid({ error: 'must be the acting user id (a UUID)' }),
    agentId: z.union([z.literal(''), z.guid({ error: 'must be an agent record id (a UUID), or empty' })]),
  },
  { error: 'is required: the acting user' },
);

export interface Acting {
  userId: string;
  agent: AgentRecord;
}

/** The acting user's agent record, from auth: not_found when they own none (or not the one named). */
export async function resolveActor(auth: PromiseClient<typeof AuthServiceService>, actor: Pick<Actor, 'userId' | 'agentId'>): Promise<Acting> {
  const { agent } = await auth.getUserAgent({ userId: actor.userId, agentId: actor.agentId });
  if (!agent) throw new DomainError('internal', 'Internal error. Report it with the request id.', { internalReason: 'auth answered without a record' });
  return { userId: actor.userId, agent };
}
