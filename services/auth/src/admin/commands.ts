import { randomUUID } from 'node:crypto';
import { encryptSecret } from '@gateway/lib/cipher';
import { sqlStateOf } from '@gateway/lib/db';
import { DomainError } from '@gateway/lib/errors';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { deleteAgentInstance } from '../agents/delete';
import type { AuthDatabase } from '../db/schema';
import { serverRegions, serverTiers } from '../db/tables/agent-instances';
import { roles } from '../db/tables/memberships';
import { MAX_PASSWORD_LENGTH, hashPassword } from '../identity/passwords';
import { parseInput, type FieldNamer } from '@gateway/lib/validation';
import { emailSchema } from '../identity/validation';
import { createApiKey } from '../keys/create';
import { MAX_EXPIRY_DAYS } from '../keys/expiry';
import type { KeyEnvironment } from '../keys/format';
import { DEFAULT_SCOPES, scopeSetSchema } from '../keys/scopes';
import { issueGatewayToken, issuePlatformAgentSecret } from '../legacy/issue';
import { defaultMessagesLimit, planTierNames } from './plans';
import { storableText } from '@gateway/lib/storable-text';

/**
 * The operations of `npm run admin`, as plain functions on the auth database:
 * the command line, the embedded start (demo organization, owner and key) and
 * the tests all call these. Inputs are checked here, whoever calls, and
 * problems name the command-line flag (`--owner-email`) of the field.
 */
export const flagName: FieldNamer = (key) => `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;

const id = (what: string) => z.uuid(`must be the id (a UUID) of ${what}`);
const text = (max: number) => storableText().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const oneOf = <const Values extends readonly [string, ...string[]]>(values: Values) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

export const MIN_PASSWORD_LENGTH = 8;
/** The column is a Postgres integer. */
const MAX_MESSAGES_LIMIT = 2_147_483_647;

export const createOrganizationInput = z.object({ name: text(200), plan: oneOf(planTierNames()) });
export const setPlanInput = z.object({ org: id('an organization'), plan: oneOf(planTierNames()) });
export const createUserInput = z.object({
  email: emailSchema,
  password: z
    .string({ error: 'is required' })
    .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
    .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`),
});
export const addMemberInput = z.object({ org: id('an organization'), email: emailSchema, role: oneOf(roles) });
export const createAgentInput = z.object({
  org: id('an organization'),
  ownerEmail: emailSchema.optional(),
  model: text(200).default('auto'),
  /** Defaults to the organization's plan. */
  plan: oneOf(planTierNames()).optional(),
  /** Defaults to the plan's monthly message limit. */
  messagesLimit: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(0, 'must not be negative')
    .max(MAX_MESSAGES_LIMIT, `must be at most ${MAX_MESSAGES_LIMIT}`)
    .optional(),
  tier: oneOf(serverTiers).default('starter'),
  region: oneOf(serverRegions).default('us-east'),
  /** The caller's own provider key: makes the record BYOK; stored encrypted. */
  providerKey: text(1024).optional(),
});
export const deleteAgentInput = z.object({ org: id('an organization'), agent: id('an agent record') });
export const issueGatewayTokenInput = z.object({ agent: id('an agent record') });
export const issueAgentSecretInput = z.object({ description: text(200) });
export const createKeyInput = z.object({
  org: id('an organization'),
  actorEmail: emailSchema,
  name: text(200).default('Admin key'),
  /** A list, or comma-separated as typed on the command line. */
  scopes: z
    .preprocess((value) => (typeof value === 'string' ? value.split(',').map((scope) => scope.trim()) : value), scopeSetSchema)
    .optional(),
  agent: id('an agent record').optional(),
  expiresInDays: z.coerce
    .number({ error: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(1, `must be between 1 and ${MAX_EXPIRY_DAYS}`)
    .max(MAX_EXPIRY_DAYS, `must be between 1 and ${MAX_EXPIRY_DAYS}`)
    .optional(),
});

export type CreateOrganizationInput = z.input<typeof createOrganizationInput>;
export type CreateUserInput = z.input<typeof createUserInput>;
export type AddMemberInput = z.input<typeof addMemberInput>;
export type CreateAgentInput = z.input<typeof createAgentInput>;
export type DeleteAgentInput = z.input<typeof deleteAgentInput>;
export type IssueGatewayTokenInput = z.input<typeof issueGatewayTokenInput>;
export type IssueAgentSecretInput = z.input<typeof issueAgentSecretInput>;
export type CreateKeyInput = z.input<typeof createKeyInput>;

function isUniqueViolation(error: unknown): boolean {
  return sqlStateOf(error) === '23505';
}

export async function requireOrganization(db: Kysely<AuthDatabase>, organizationId: string): Promise<{ planTier: string }> {
  const organization = await db.selectFrom('organizations').select('plan_tier').where('id', '=', organizationId).executeTakeFirst();
  if (!organization) throw new DomainError('not_found', `No organization has id ${organizationId} (--org).`, { field: '--org' });
  return { planTier: organization.plan_tier };
}

/** The id of a user who must already belong to the organization. */
async function memberIdByEmail(db: Kysely<AuthDatabase>, organizationId: string, email: string, flag: string): Promise<string> {
  const userId = await userIdByEmail(db, email, flag);
  const membership = await db
    .selectFrom('memberships')
    .select('role')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!membership) throw new DomainError('validation', `${flag}: ${email} is not a member of the organization`, { field: flag });
  return userId;
}

async function userIdByEmail(db: Kysely<AuthDatabase>, email: string, flag: string): Promise<string> {
  const user = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  if (!user) throw new DomainError('not_found', `No user has email ${email} (${flag}); create it with create-user first.`, { field: flag });
  return user.id;
}

export async function createOrganization(db: Kysely<AuthDatabase>, input: CreateOrganizationInput) {
  const { name, plan } = parseInput(createOrganizationInput, input, flagName);
  const organization = await db
    .insertInto('organizations')
    .values({ name, plan_tier: plan })
    .returning(['id', 'name', 'plan_tier'])
    .executeTakeFirstOrThrow();
  return { id: organization.id, name: organization.name, plan: organization.plan_tier };
}

/** Moves an organization to another plan: its meter, allowance and model ceiling from the next request on. */
export async function setPlan(db: Kysely<AuthDatabase>, input: z.input<typeof setPlanInput>) {
  const { org, plan } = parseInput(setPlanInput, input, flagName);
  const previous = await requireOrganization(db, org);
  const organization = await db
    .updateTable('organizations')
    .set({ plan_tier: plan })
    .where('id', '=', org)
    .returning(['id', 'name', 'plan_tier'])
    .executeTakeFirstOrThrow();
  return { id: organization.id, name: organization.name, plan: organization.plan_tier, previous_plan: previous.planTier };
}

export async function createUser(db: Kysely<AuthDatabase>, input: CreateUserInput) {
  const { email, password } = parseInput(createUserInput, input, flagName);
  try {
    const user = await db
      .insertInto('users')
      .values({ email, password_hash: await hashPassword(password) })
      .returning(['id', 'email'])
      .executeTakeFirstOrThrow();
    return { id: user.id, email: user.email };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw new DomainError('conflict', `A user with email ${email} already exists.`, { field: '--email' });
  }
}

/** Makes the user a member of the organization, or changes the role of an existing member. */
export async function addMember(db: Kysely<AuthDatabase>, input: AddMemberInput) {
  const { org, email, role } = parseInput(addMemberInput, input, flagName);
  await requireOrganization(db, org);
  const userId = await userIdByEmail(db, email, '--email');
  await db
    .insertInto('memberships')
    .values({ organization_id: org, user_id: userId, role })
    .onConflict((conflict) => conflict.columns(['organization_id', 'user_id']).doUpdateSet({ role }))
    .execute();
  return { organizationId: org, userId, email, role };
}

/**
 * Creates an agent billing record. With a provider key the record is BYOK and
 * the key is stored encrypted (AES-256-GCM under SECRETS_KEY), bound to the
 * record's id as associated data: decrypt with
 * `decryptSecret(provider_key_ciphertext, secretsKey, agent.id)`.
 */
export async function createAgent(db: Kysely<AuthDatabase>, input: CreateAgentInput, secretsKey?: Buffer) {
  const parsed = parseInput(createAgentInput, input, flagName);
  const organization = await requireOrganization(db, parsed.org);
  const plan = parsed.plan ?? organization.planTier;
  const messagesLimit = parsed.messagesLimit ?? defaultMessagesLimit(plan);
  if (messagesLimit === undefined) {
    throw new DomainError('validation', `--messages-limit: is required, as plan "${plan}" has no default`, { field: '--messages-limit' });
  }
  const ownerUserId = parsed.ownerEmail === undefined ? null : await memberIdByEmail(db, parsed.org, parsed.ownerEmail, '--owner-email');
  const agentId = randomUUID();
  let providerKeyCiphertext: string | null = null;
  if (parsed.providerKey !== undefined) {
    if (!secretsKey) {
      throw new DomainError('validation', '--provider-key: needs SECRETS_KEY (64 hex characters) to encrypt it', { field: '--provider-key' });
    }
    providerKeyCiphertext = encryptSecret(parsed.providerKey, secretsKey, agentId);
  }
  const agent = await db
    .insertInto('agent_instances')
    .values({
      id: agentId,
      organization_id: parsed.org,
      owner_user_id: ownerUserId,
      status: 'running',
      server_ip: null,
      server_tier: parsed.tier,
      server_region: parsed.region,
      ai_model: parsed.model,
      plan_tier: plan,
      messages_limit: messagesLimit,
      messenger_type: 'web',
      mode: providerKeyCiphertext === null ? 'managed' : 'byok',
      provider_key_ciphertext: providerKeyCiphertext,
      gateway_token_hash: null,
    })
    .returning(['id', 'organization_id', 'owner_user_id', 'ai_model', 'plan_tier', 'messages_limit', 'server_tier', 'server_region', 'mode'])
    .executeTakeFirstOrThrow();
  return {
    id: agent.id,
    organizationId: agent.organization_id,
    ownerUserId: agent.owner_user_id,
    model: agent.ai_model,
    plan: agent.plan_tier,
    messagesLimit: agent.messages_limit,
    tier: agent.server_tier,
    region: agent.server_region,
    mode: agent.mode,
  };
}

export async function deleteAgent(db: Kysely<AuthDatabase>, input: DeleteAgentInput) {
  const { org, agent } = parseInput(deleteAgentInput, input, flagName);
  await deleteAgentInstance(db, org, agent);
  return { organizationId: org, agentId: agent, deleted: true };
}

/** A new legacy gateway token for the agent record (replacing any previous one); shown this once. */
export async function issueAgentGatewayToken(db: Kysely<AuthDatabase>, input: IssueGatewayTokenInput) {
  const { agent } = parseInput(issueGatewayTokenInput, input, flagName);
  return { agentId: agent, gatewayToken: await issueGatewayToken(db, agent) };
}

/** A new legacy platform agent secret; shown this once. */
export async function issueAgentSecret(db: Kysely<AuthDatabase>, input: IssueAgentSecretInput) {
  const { description } = parseInput(issueAgentSecretInput, input, flagName);
  return { description, agentSecret: await issuePlatformAgentSecret(db, description) };
}

/** An organization API key created on behalf of an owner or admin (bootstrap); the key is shown this once. */
export async function createKey(db: Kysely<AuthDatabase>, keyEnvironment: KeyEnvironment, input: CreateKeyInput) {
  const parsed = parseInput(createKeyInput, input, flagName);
  const actorUserId = await userIdByEmail(db, parsed.actorEmail, '--actor-email');
  const { record, key } = await createApiKey(
    db,
    keyEnvironment,
    { userId: actorUserId, organizationId: parsed.org },
    {
      name: parsed.name,
      scopes: parsed.scopes ?? [...DEFAULT_SCOPES],
      agentId: parsed.agent ?? null,
      expiry: parsed.expiresInDays === undefined ? null : { inDays: parsed.expiresInDays },
    },
  );
  return {
    apiKey: {
      id: record.id,
      organizationId: record.organization_id,
      name: record.name,
      prefix: record.prefix,
      scopes: record.scopes,
      agentId: record.agent_id,
      expiresAt: record.expires_at,
    },
    key,
  };
}
