import type { Kysely } from 'kysely';
import { invalidCredential } from '@gateway/lib/errors';
import { PrincipalKind, type Principal } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { AuthDatabase } from '../db/schema';
import { sha256Hex } from '../keys/hash';
import { legacyPrincipal } from './principal';

/**
 * The platform agent secret, presented with `X-Service-Agent-Id` (docs/api.md):
 * one shared secret that acts for any agent record it names. The secret must
 * be known and not revoked, and the named agent record must exist; the call
 * is attributed to that record.
 */
export async function verifyPlatformAgentSecret(db: Kysely<AuthDatabase>, secret: string, agentId: string): Promise<Principal> {
  const found = await db
    .selectFrom('platform_agent_secrets as s')
    .leftJoin('agent_instances as a', (join) => join.on('a.id', '=', agentId))
    .select([
      's.revoked_at',
      'a.id',
      'a.organization_id',
      'a.ai_model',
      'a.mode',
      'a.plan_tier',
      'a.provider_key_ciphertext',
      'a.messages_limit',
    ])
    .where('s.secret_hash', '=', sha256Hex(secret))
    .executeTakeFirst();
  if (!found) throw invalidCredential('unknown_platform_secret');
  if (found.revoked_at) throw invalidCredential('revoked_platform_secret');
  const { id, organization_id, ai_model, mode, plan_tier, provider_key_ciphertext, messages_limit } = found;
  if (
    id === null ||
    organization_id === null ||
    ai_model === null ||
    mode === null ||
    plan_tier === null ||
    messages_limit === null
  ) {
    throw invalidCredential('unknown_agent', 'the platform agent secret names no agent record');
  }
  return legacyPrincipal(PrincipalKind.PRINCIPAL_KIND_AGENT_SECRET, {
    id,
    organization_id,
    ai_model,
    mode,
    plan_tier,
    provider_key_ciphertext,
    messages_limit,
  });
}
