import type { Kysely } from 'kysely';
import { invalidCredential } from '@gateway/lib/errors';
import { PrincipalKind, type Principal } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { AuthDatabase } from '../db/schema';
import { sha256Hex } from '../keys/hash';
import { legacyPrincipal } from './principal';

/**
 * A per-agent gateway token (docs/api.md: any bearer value not shaped like an
 * API key), found by the SHA-256 of the whole value on the agent record.
 */
export async function verifyGatewayToken(db: Kysely<AuthDatabase>, token: string): Promise<Principal> {
  const agent = await db
    .selectFrom('agent_instances')
    .select(['id', 'organization_id', 'ai_model', 'mode', 'plan_tier', 'provider_key_ciphertext', 'messages_limit'])
    .where('gateway_token_hash', '=', sha256Hex(token))
    .executeTakeFirst();
  if (!agent) throw invalidCredential('unknown_gateway_token');
  return legacyPrincipal(PrincipalKind.PRINCIPAL_KIND_GATEWAY_TOKEN, agent);
}
