import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { DomainError } from '@gateway/lib/errors';
import type { AuthDatabase } from '../db/schema';
import { sha256Hex } from '../keys/hash';

/**
 * Issues legacy credentials for the admin command line and the tests; no
 * gRPC or HTTP endpoint does (docs/api.md#authentication). Only the hash is stored; the
 * plaintext is returned this once. The `gwt_` / `pas_` shapes are what the
 * log redaction recognises.
 */
function randomCredential(marker: 'gwt_' | 'pas_'): string {
  return marker + randomBytes(24).toString('hex');
}

/** Issues a per-agent gateway token, replacing the agent record's previous one. */
export async function issueGatewayToken(db: Kysely<AuthDatabase>, agentId: string): Promise<string> {
  const token = randomCredential('gwt_');
  const result = await db
    .updateTable('agent_instances')
    .set({ gateway_token_hash: sha256Hex(token), updated_at: new Date() })
    .where('id', '=', agentId)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) {
    throw new DomainError('not_found', 'Agent record not found.', { field: 'agent_id' });
  }
  return token;
}

/** Issues a platform agent secret; the description says who holds it. */
export async function issuePlatformAgentSecret(db: Kysely<AuthDatabase>, description: string): Promise<string> {
  const trimmed = description.trim();
  if (trimmed === '') {
    throw new DomainError('validation', 'description: is required (who holds this secret)', { field: 'description' });
  }
  const secret = randomCredential('pas_');
  await db.insertInto('platform_agent_secrets').values({ secret_hash: sha256Hex(secret), description: trimmed }).execute();
  return secret;
}
