import { DomainError } from '@gateway/lib/errors';
import { ApiKeyStatus, Role, type ApiKey, type Membership, type User } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { KeyJson, KeyStatusName, MembershipJson, RoleName, UserJson } from './contract';

/**
 * The JSON shapes of the identity and Console APIs, built from the auth
 * service's messages. Proto enums become lowercase strings here and only here.
 */
/** A backend broke its contract: a bug to report, not the client's fault. */
function contractViolation(what: string, service = 'auth'): DomainError {
  return new DomainError('internal', 'Internal error. Report it with the request id.', {
    internalReason: `${service} service answered ${what}`,
  });
}

/** Unwraps an optional sub-message a backend (the auth service unless named) always sets. */
export function present<T>(value: T | undefined, name: string, service?: string): T {
  if (value === undefined) throw contractViolation(`without ${name}`, service);
  return value;
}

const ROLE_NAMES: Partial<Record<Role, RoleName>> = {
  [Role.ROLE_OWNER]: 'owner',
  [Role.ROLE_ADMIN]: 'admin',
  [Role.ROLE_MEMBER]: 'member',
};

const KEY_STATUS_NAMES: Partial<Record<ApiKeyStatus, KeyStatusName>> = {
  [ApiKeyStatus.API_KEY_STATUS_ACTIVE]: 'active',
  [ApiKeyStatus.API_KEY_STATUS_EXPIRED]: 'expired',
  [ApiKeyStatus.API_KEY_STATUS_REVOKED]: 'revoked',
};

export function roleName(role: Role): RoleName {
  const name = ROLE_NAMES[role];
  if (!name) throw contractViolation(`an unknown role ${role}`);
  return name;
}

export function keyStatusName(status: ApiKeyStatus): KeyStatusName {
  const name = KEY_STATUS_NAMES[status];
  if (!name) throw contractViolation(`an unknown key status ${status}`);
  return name;
}

/** ISO-8601 UTC, or null when the moment has not happened. */
function isoOrNull(moment: Date | undefined): string | null {
  return moment ? moment.toISOString() : null;
}

export function toMembershipJson(membership: Membership): MembershipJson {
  return {
    organization_id: membership.organizationId,
    organization_name: membership.organizationName,
    role: roleName(membership.role),
    plan_tier: membership.planTier,
  };
}

export function toUserJson(user: User): UserJson {
  return { id: user.id, email: user.email, memberships: user.memberships.map(toMembershipJson) };
}

/** A key as the Console shows it: never the secret, which the proto message does not carry. */
export function toKeyJson(key: ApiKey): KeyJson {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    bound_to: key.agentId ? { type: 'agent', agent_id: key.agentId } : { type: 'organization' },
    status: keyStatusName(key.status),
    expires_at: isoOrNull(key.expiresAt),
    last_used_at: isoOrNull(key.lastUsedAt),
    created_at: present(key.createdAt, 'created_at').toISOString(),
    revoked_at: isoOrNull(key.revokedAt),
  };
}
