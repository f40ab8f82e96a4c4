import { timingSafeEqual } from 'node:crypto';
import type { CompiledQuery, Kysely } from 'kysely';
import { invalidCredential, type CredentialRejection, type DomainError } from '@gateway/lib/errors';
import { PrincipalKind, type Principal } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { agentAttribution, organizationAttribution } from '../agents/attribution';
import type { AuthDatabase } from '../db/schema';
import { sha256Hex } from './hash';
import type { LastUsedRecorder } from './last-used';

/**
 * Compared against when the prefix names no key, so an unknown selector
 * costs the same hash and comparison as a wrong secret. No key hashes to it:
 * it is the hash of a string that is not shaped like a key.
 */
const DUMMY_HASH = Buffer.from(sha256Hex('no api key has this hash'), 'hex');

function rejected(reason: CredentialRejection, prefix: string): DomainError {
  // The prefix is not secret and identifies the key in logs; the key never is logged.
  return invalidCredential(reason, `prefix ${prefix}`);
}

function keyByPrefixQuery(db: Kysely<AuthDatabase>, prefix: string) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('organizations as o', 'o.id', 'k.organization_id')
    .leftJoin('agent_instances as a', 'a.id', 'k.agent_id')
    .select([
      'k.id',
      'k.organization_id',
      'k.secret_hash',
      'k.scopes',
      'k.expires_at',
      'k.revoked_at',
      'k.last_used_at',
      'o.plan_tier as organization_plan_tier',
      'a.id as agent_id',
      'a.ai_model as agent_model',
      'a.mode as agent_mode',
      'a.plan_tier as agent_plan_tier',
      'a.provider_key_ciphertext as agent_provider_key_ciphertext',
      'a.messages_limit as agent_messages_limit',
    ])
    .where('k.prefix', '=', prefix)
    .compile();
}

type KeyByPrefixQuery = ReturnType<typeof keyByPrefixQuery>;
type KeyByPrefixRow = KeyByPrefixQuery extends CompiledQuery<infer Row> ? Row : never;

/**
 * The lookup is built once per database handle and then only re-bound to
 * each prefix: building and compiling it on every call would cost a large
 * share of the hot path's budget.
 */
const compiledLookups = new WeakMap<Kysely<AuthDatabase>, KeyByPrefixQuery>();

async function findKeyByPrefix(db: Kysely<AuthDatabase>, prefix: string) {
  let compiled = compiledLookups.get(db);
  if (!compiled) {
    compiled = keyByPrefixQuery(db, prefix);
    compiledLookups.set(db, compiled);
  }
  const bound: CompiledQuery<KeyByPrefixRow> = { ...compiled, parameters: [prefix] };
  const { rows } = await db.executeQuery(bound);
  return rows[0];
}

/**
 * Verifies an API key (docs/api.md#authentication): one indexed lookup by prefix (joining the
 * organization and the bound agent record), a constant-time comparison of
 * SHA-256 hashes, and only after the secret matches, the lifecycle. So a
 * wrong secret cannot learn whether a selector names a revoked key or none.
 *
 * Auth itself caches nothing: every call reads the row, so a revocation is
 * seen by the very next call on every auth replica. Edge's principal cache
 * is emptied on every edge replica before a revoke returns (invalidation/).
 */
export async function verifyApiKey(
  db: Kysely<AuthDatabase>,
  lastUsed: LastUsedRecorder,
  key: string,
  prefix: string,
  now = new Date(),
): Promise<Principal> {
  const row = await findKeyByPrefix(db, prefix);
  const presented = Buffer.from(sha256Hex(key), 'hex');
  const secretMatches = timingSafeEqual(presented, row ? Buffer.from(row.secret_hash, 'hex') : DUMMY_HASH);
  if (!row) throw rejected('unknown_key', prefix);
  if (!secretMatches) throw rejected('wrong_secret', prefix);
  if (row.revoked_at) throw rejected('revoked', prefix);
  if (row.expires_at && row.expires_at.getTime() <= now.getTime()) throw rejected('expired', prefix);

  lastUsed.record(row.id, row.last_used_at, now);
  const attribution =
    row.agent_id !== null &&
    row.agent_model !== null &&
    row.agent_mode !== null &&
    row.agent_plan_tier !== null &&
    row.agent_messages_limit !== null
      ? agentAttribution({
          id: row.agent_id,
          ai_model: row.agent_model,
          mode: row.agent_mode,
          plan_tier: row.agent_plan_tier,
          provider_key_ciphertext: row.agent_provider_key_ciphertext,
          messages_limit: row.agent_messages_limit,
        })
      : organizationAttribution(row.organization_plan_tier);
  return {
    kind: PrincipalKind.PRINCIPAL_KIND_API_KEY,
    organizationId: row.organization_id,
    apiKeyId: row.id,
    scopes: row.scopes,
    enforceQuota: true,
    expiresAt: row.expires_at ?? undefined,
    ...attribution,
  };
}
