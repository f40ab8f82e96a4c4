import type { Kysely } from 'kysely';
import { invalidCredential } from '@gateway/lib/errors';
import type { Principal } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { AuthDatabase } from '../db/schema';
import { verifyGatewayToken } from '../legacy/gateway-token';
import { verifyPlatformAgentSecret } from '../legacy/platform-secret';
import { parseKey } from './format';
import type { LastUsedRecorder } from './last-used';
import { verifyApiKey } from './verify';

/** Longer than any credential this system ever issued: rejected before any work. */
const MAX_CREDENTIAL_LENGTH = 512;

export interface CredentialToCheck {
  credential: string;
  /** `X-Service-Agent-Id`, or null when absent. */
  agentId: string | null;
}

/**
 * Decides which kind of credential was presented (docs/api.md): a value shaped
 * like an API key is verified as one; anything else is a legacy credential,
 * the platform agent secret when an agent id comes with it, else a per-agent
 * gateway token. Every rejection is the same `auth` error.
 */
export async function authenticateCredential(
  db: Kysely<AuthDatabase>,
  lastUsed: LastUsedRecorder,
  { credential, agentId }: CredentialToCheck,
): Promise<Principal> {
  if (credential === '') throw invalidCredential('missing');
  if (credential.length > MAX_CREDENTIAL_LENGTH) throw invalidCredential('oversized');
  const prefix = parseKey(credential);
  if (prefix !== null) return verifyApiKey(db, lastUsed, credential, prefix);
  if (agentId !== null) return verifyPlatformAgentSecret(db, credential, agentId);
  return verifyGatewayToken(db, credential);
}
