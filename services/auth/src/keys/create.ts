import type { Kysely } from 'kysely';
import { DomainError } from '@gateway/lib/errors';
import type { AuthDatabase } from '../db/schema';
import { authorizeKeyAction, type KeyActor } from './access';
import { recordKeyEvent } from './events';
import { resolveExpiry, type ExpiryRequest } from './expiry';
import { generateKey, type GeneratedKey, type KeyEnvironment } from './format';
import { sha256Hex } from './hash';
import { API_KEY_COLUMNS, type ApiKeyRecord } from './records';
import type { ScopeName } from './scopes';

export interface NewKey {
  name: string;
  scopes: ScopeName[];
  /** Agent record to bind, or null for an organization-level key. */
  agentId: string | null;
  expiry: ExpiryRequest;
}

export interface CreatedKey {
  record: ApiKeyRecord;
  /** The whole key: returned this once, never stored. */
  key: string;
}

export interface CreateOptions {
  now?: Date;
  /** Draws a key; replaceable so a selector collision can be provoked. */
  generate?: (environment: KeyEnvironment) => GeneratedKey;
}

/** A selector collision is drawn again; more than a few in a row means something else is wrong. */
const MAX_DRAWS = 5;
const PREFIX_CONSTRAINT = 'api_keys_prefix_key';

function isPrefixCollision(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === PREFIX_CONSTRAINT;
}

/**
 * The agent record to bind must belong to the key's organization. A record
 * of another organization is reported exactly like one that does not exist,
 * so other organizations' agent ids leak nothing. The row is share-locked so
 * it cannot vanish before the key referencing it commits.
 */
async function checkBinding(trx: Kysely<AuthDatabase>, organizationId: string, agentId: string): Promise<void> {
  const agent = await trx
    .selectFrom('agent_instances')
    .select('id')
    .where('id', '=', agentId)
    .where('organization_id', '=', organizationId)
    .forKeyShare()
    .executeTakeFirst();
  if (!agent) {
    throw new DomainError('validation', 'agent_id: no agent record with this id in the organization', { field: 'agent_id' });
  }
}

/** Creates an organization API key (owner or admin), with its audit row, in one transaction. */
export async function createApiKey(
  db: Kysely<AuthDatabase>,
  environment: KeyEnvironment,
  actor: KeyActor,
  input: NewKey,
  { now = new Date(), generate = generateKey }: CreateOptions = {},
): Promise<CreatedKey> {
  await authorizeKeyAction(db, actor, 'create');
  const expiresAt = resolveExpiry(input.expiry, now);

  for (let draw = 1; ; draw += 1) {
    const { key, prefix } = generate(environment);
    try {
      const record = await db.transaction().execute(async (trx) => {
        if (input.agentId !== null) await checkBinding(trx, actor.organizationId, input.agentId);
        const inserted = await trx
          .insertInto('api_keys')
          .values({
            organization_id: actor.organizationId,
            name: input.name,
            prefix,
            secret_hash: sha256Hex(key),
            scopes: input.scopes,
            agent_id: input.agentId,
            expires_at: expiresAt,
            created_by_user_id: actor.userId,
          })
          .returning(API_KEY_COLUMNS)
          .executeTakeFirstOrThrow();
        await recordKeyEvent(trx, {
          apiKeyId: inserted.id,
          organizationId: actor.organizationId,
          actorUserId: actor.userId,
          action: 'created',
          detail: { name: inserted.name, scopes: inserted.scopes, agent_id: inserted.agent_id, expires_at: inserted.expires_at },
        });
        return inserted;
      });
      return { record, key };
    } catch (error) {
      if (isPrefixCollision(error) && draw < MAX_DRAWS) continue;
      throw error;
    }
  }
}
