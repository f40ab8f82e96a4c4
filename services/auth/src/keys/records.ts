import { DomainError } from '@gateway/lib/errors';
import { ApiKeyStatus, type ApiKey } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { ApiKeyRow } from '../db/tables/api-keys';

/** Every column of a key except its secret hash, which never leaves verification. */
export const API_KEY_COLUMNS = [
  'id',
  'organization_id',
  'name',
  'prefix',
  'scopes',
  'agent_id',
  'expires_at',
  'last_used_at',
  'created_at',
  'created_by_user_id',
  'revoked_at',
] as const;

export type ApiKeyRecord = Pick<ApiKeyRow, (typeof API_KEY_COLUMNS)[number]>;

/** Status is computed when the key is read: expiry passes without any write. */
export function keyStatus(record: Pick<ApiKeyRecord, 'revoked_at' | 'expires_at'>, now: Date): ApiKeyStatus {
  if (record.revoked_at) return ApiKeyStatus.API_KEY_STATUS_REVOKED;
  if (record.expires_at && record.expires_at.getTime() <= now.getTime()) return ApiKeyStatus.API_KEY_STATUS_EXPIRED;
  return ApiKeyStatus.API_KEY_STATUS_ACTIVE;
}

export function toApiKeyMessage(record: ApiKeyRecord, now: Date): ApiKey {
  return {
    id: record.id,
    organizationId: record.organization_id,
    name: record.name,
    prefix: record.prefix,
    scopes: record.scopes,
    agentId: record.agent_id ?? '',
    expiresAt: record.expires_at ?? undefined,
    lastUsedAt: record.last_used_at ?? undefined,
    createdAt: record.created_at,
    revokedAt: record.revoked_at ?? undefined,
    status: keyStatus(record, now),
    createdByUserId: record.created_by_user_id ?? '',
  };
}

/** A key id that is not one of the organization's keys, whoever else it may belong to. */
export function apiKeyNotFound(): DomainError {
  return new DomainError('not_found', 'API key not found in this organization.', { field: 'api_key_id' });
}
