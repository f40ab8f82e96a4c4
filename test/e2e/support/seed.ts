import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { addMember, createAgent, createKey, createOrganization, createUser } from '@gateway/auth/admin';
import type { AuthDatabase } from '@gateway/auth/db';

/** An organization with an owner and one API key, through the admin commands. */
export interface Caller {
  organizationId: string;
  ownerEmail: string;
  key: string;
  keyId: string;
  agentId?: string;
}

export interface CallerOptions {
  plan: string;
  scopes?: string[];
  /** Bind the key to a new agent record of the organization. */
  agent?: { model?: string; plan?: string; providerKey?: string; messagesLimit?: number };
}

export async function seedCaller(db: Kysely<AuthDatabase>, secretsKey: Buffer, options: CallerOptions): Promise<Caller> {
  const suffix = randomBytes(4).toString('hex');
  const organization = await createOrganization(db, { name: `Org ${suffix}`, plan: options.plan });
  const ownerEmail = `owner-${suffix}@example.com`;
  await createUser(db, { email: ownerEmail, password: `pw-${randomBytes(8).toString('hex')}` });
  await addMember(db, { org: organization.id, email: ownerEmail, role: 'owner' });
  const agent = options.agent
    ? await createAgent(
        db,
        {
          org: organization.id,
          ...(options.agent.model ? { model: options.agent.model } : {}),
          ...(options.agent.plan ? { plan: options.agent.plan } : {}),
          ...(options.agent.providerKey ? { providerKey: options.agent.providerKey } : {}),
          ...(options.agent.messagesLimit !== undefined ? { messagesLimit: options.agent.messagesLimit } : {}),
        },
        secretsKey,
      )
    : undefined;
  const created = await createKey(db, 'test', {
    org: organization.id,
    actorEmail: ownerEmail,
    name: 'e2e',
    ...(options.scopes ? { scopes: options.scopes.join(',') } : {}),
    ...(agent ? { agent: agent.id } : {}),
  });
  return {
    organizationId: organization.id,
    ownerEmail,
    key: created.key,
    keyId: created.apiKey.id,
    ...(agent ? { agentId: agent.id } : {}),
  };
}
