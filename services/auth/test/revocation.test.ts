import { DomainError } from '@gateway/lib/errors';
import { findCredentials } from '../../../test/support/secrets-scan';
import { AUTH_START_TIMEOUT_MS, startAuthReplicas, type RunningAuth } from './support/auth-process';
import { createAuthTestDatabase, seedOrganizationWithRoles, type AuthTestDatabase } from './support/seed';

/**
 * Two auth replicas on one database: a key revoked through one is refused by
 * the other on the very next call (verification reads the row every time).
 */
let database: AuthTestDatabase;
let replicaA: RunningAuth;
let replicaB: RunningAuth;

beforeAll(async () => {
  database = await createAuthTestDatabase('revocation');
  [replicaA, replicaB] = (await startAuthReplicas(database.url, 2)) as [RunningAuth, RunningAuth];
}, 2 * AUTH_START_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all([replicaA?.stop(), replicaB?.stop()]);
  await database?.drop();
});

it('refuses a key on replica B on the call right after replica A revoked it', async () => {
  const { organization, owner } = await seedOrganizationWithRoles(database.db);
  for (let round = 0; round < 5; round += 1) {
    const created = await replicaA.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: `key ${round}`, agentId: '' });
    const apiKeyId = created.apiKey?.id ?? '';
    // B has verified the key (and would have cached it, if it cached).
    for (let call = 0; call < 3; call += 1) await replicaB.client.authenticate({ credential: created.secret, agentId: '' });

    await replicaA.client.revokeApiKey({ actorUserId: owner, organizationId: organization.id, apiKeyId });

    const next = await replicaB.client.authenticate({ credential: created.secret, agentId: '' }).catch((error: unknown) => error);
    expect(next).toBeInstanceOf(DomainError);
    expect(next).toMatchObject({ kind: 'auth' });
  }
});

it('keeps the first revocation time when the other replica revokes again', async () => {
  const { organization, owner, admin } = await seedOrganizationWithRoles(database.db);
  const created = await replicaA.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '' });
  const apiKeyId = created.apiKey?.id ?? '';
  const first = await replicaA.client.revokeApiKey({ actorUserId: owner, organizationId: organization.id, apiKeyId });
  const second = await replicaB.client.revokeApiKey({ actorUserId: admin, organizationId: organization.id, apiKeyId });
  expect(first.apiKey?.revokedAt).toBeInstanceOf(Date);
  expect(second.apiKey?.revokedAt).toEqual(first.apiKey?.revokedAt);
});

it('leaves no credential-shaped string in either replica log', async () => {
  await Promise.all([replicaA.stop(), replicaB.stop()]);
  for (const replica of [replicaA, replicaB]) expect(findCredentials(replica.process.logs())).toEqual([]);
});
