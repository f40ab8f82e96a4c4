import { DomainError } from '@gateway/lib/errors';
import { ApiKeyStatus, Role } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { AGENT_ID, ORG_ID, USER_ID, sampleKey } from '../test/support/fake-auth';
import { keyStatusName, present, roleName, toKeyJson, toUserJson } from './mappers';

describe('mappers', () => {
  it('maps every role and key status to its lowercase name', () => {
    expect([Role.ROLE_OWNER, Role.ROLE_ADMIN, Role.ROLE_MEMBER].map(roleName)).toEqual(['owner', 'admin', 'member']);
    expect(
      [ApiKeyStatus.API_KEY_STATUS_ACTIVE, ApiKeyStatus.API_KEY_STATUS_EXPIRED, ApiKeyStatus.API_KEY_STATUS_REVOKED].map(keyStatusName),
    ).toEqual(['active', 'expired', 'revoked']);
  });

  it('treats an unspecified enum from the auth service as an internal error', () => {
    for (const map of [() => roleName(Role.ROLE_UNSPECIFIED), () => keyStatusName(ApiKeyStatus.UNRECOGNIZED)]) {
      expect(map).toThrow(DomainError);
      try {
        map();
      } catch (error) {
        expect((error as DomainError).kind).toBe('internal');
      }
    }
  });

  it('rejects a missing sub-message as internal', () => {
    expect(() => present(undefined, 'session')).toThrow(DomainError);
    expect(present(0, 'zero')).toBe(0);
  });

  it('shows an organization-level key with nulls for the moments that have not happened', () => {
    expect(toKeyJson(sampleKey())).toEqual({
      id: '9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d',
      name: 'ci',
      prefix: 'svc_test_0a1b2c3d',
      scopes: ['inference', 'usage:read'],
      bound_to: { type: 'organization' },
      status: 'active',
      expires_at: null,
      last_used_at: null,
      created_at: '2026-01-02T03:04:05.000Z',
      revoked_at: null,
    });
  });

  it('shows a bound, revoked key with its agent and timestamps in UTC', () => {
    const json = toKeyJson(
      sampleKey({
        agentId: AGENT_ID,
        status: ApiKeyStatus.API_KEY_STATUS_REVOKED,
        expiresAt: new Date(Date.UTC(2027, 0, 1)),
        lastUsedAt: new Date(Date.UTC(2026, 5, 1, 12, 30)),
        revokedAt: new Date(Date.UTC(2026, 6, 1)),
      }),
    );
    expect(json).toMatchObject({
      bound_to: { type: 'agent', agent_id: AGENT_ID },
      status: 'revoked',
      expires_at: '2027-01-01T00:00:00.000Z',
      last_used_at: '2026-06-01T12:30:00.000Z',
      revoked_at: '2026-07-01T00:00:00.000Z',
    });
  });

  it('shows a user with memberships', () => {
    expect(
      toUserJson({
        id: USER_ID,
        email: 'a@example.com',
        memberships: [{ organizationId: ORG_ID, organizationName: 'Acme', role: Role.ROLE_MEMBER, planTier: 'free' }],
      }),
    ).toEqual({
      id: USER_ID,
      email: 'a@example.com',
      memberships: [{ organization_id: ORG_ID, organization_name: 'Acme', role: 'member', plan_tier: 'free' }],
    });
  });
});
