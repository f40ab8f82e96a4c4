import type { IncomingMessage } from 'node:http';
import { DomainError, invalidCredential } from '@gateway/lib/errors';
import type { PromiseClient } from '@gateway/lib/grpc';
import {
  InferenceMode,
  PrincipalKind,
  type AuthServiceService,
  type Principal,
} from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { Subject } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { PrincipalCache } from './principal-cache';

/** Header naming the agent record for the legacy platform agent secret. */
export const AGENT_ID_HEADER = 'x-service-agent-id';

const PRINCIPAL_NAMES: Partial<Record<PrincipalKind, string>> = {
  [PrincipalKind.PRINCIPAL_KIND_UNSPECIFIED]: '',
  [PrincipalKind.PRINCIPAL_KIND_API_KEY]: 'api_key',
  [PrincipalKind.PRINCIPAL_KIND_GATEWAY_TOKEN]: 'gateway_token',
  [PrincipalKind.PRINCIPAL_KIND_AGENT_SECRET]: 'agent_secret',
};

export function principalName(principal: Principal): string {
  return PRINCIPAL_NAMES[principal.kind] ?? '';
}

export function modeName(principal: Principal): 'managed' | 'byok' {
  return principal.mode === InferenceMode.INFERENCE_MODE_BYOK ? 'byok' : 'managed';
}

function bearerOf(req: IncomingMessage): string {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match?.[1]) throw invalidCredential('malformed_header', 'missing or not a bearer Authorization header');
  return match[1];
}

/**
 * Any gateway credential: API key, per-agent gateway token, or platform
 * agent secret. A recent verification of the same credential is reused from
 * the cache, but only while auth is connected: with auth down every call is
 * refused, cached or not, as it would be without a cache.
 */
export async function authenticateGatewayCall(
  { auth, principals: cache }: { auth: PromiseClient<typeof AuthServiceService>; principals?: PrincipalCache | undefined },
  req: IncomingMessage,
  res: { locals: Express.Locals },
): Promise<Principal> {
  const credential = bearerOf(req);
  const agentHeader = req.headers[AGENT_ID_HEADER];
  const agentId = typeof agentHeader === 'string' ? agentHeader : '';
  const ask = async () => {
    const { principal } = await auth.authenticate({ credential, agentId });
    if (!principal) throw new DomainError('internal', 'Internal error. Report it with the request id.', { internalReason: 'auth answered without a principal' });
    return principal;
  };
  const cacheKey = cache ? PrincipalCache.keyOf(credential, agentId) : '';
  if (cache && auth.isConnected()) {
    const cached = cache.get(cacheKey);
    if (cached) {
      // What the refresh answers is for later calls; a refusal is theirs to meet.
      if (cache.dueForRefresh(cacheKey)) cache.verify(cacheKey, ask).catch(() => undefined);
      res.locals.verifiedBy = 'cache';
      return cached;
    }
  }
  const principal = cache ? await cache.verify(cacheKey, ask) : await ask();
  res.locals.verifiedBy = 'auth';
  return principal;
}

/** A valid credential without the operation's scope is a 403, never a 401 (docs/api.md). */
export function requireScope(principal: Principal, scope: string): void {
  if (!principal.scopes.includes(scope)) {
    throw new DomainError('permission', `This credential lacks the "${scope}" scope needed here. Its scopes: ${principal.scopes.join(', ') || 'none'}.`);
  }
}

/** Who the ledger meters, as authentication resolved it. */
export function subjectOf(principal: Principal): Subject {
  return {
    organizationId: principal.organizationId,
    agentId: principal.agentId,
    planTier: principal.planTier,
    byok: principal.mode === InferenceMode.INFERENCE_MODE_BYOK,
    messagesLimit: principal.messagesLimit,
    enforce: principal.enforceQuota,
  };
}
