import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../../test/support/paths';
import { findCredentials } from '../../../test/support/secrets-scan';
import { API_KEYS_MIGRATION } from '../src/db';
import { issueGatewayToken } from '../src/legacy/issue';
import { failureOf } from './support/failure';
import { AUTH_START_TIMEOUT_MS, startAuth, type RunningAuth } from './support/auth-process';
import { createAuthTestDatabase, migrationsUpTo, seedAgent, seedOrganizationWithRoles, type AuthTestDatabase } from './support/seed';

/**
 * A deployment whose database lacks the keys migration says so (docs/api.md#authentication):
 * 503-class `unavailable` naming the migration, never an empty list. Then
 * `npm run migrate` applies it and the same process serves keys.
 */
let database: AuthTestDatabase;
let auth: RunningAuth;

beforeAll(async () => {
  database = await createAuthTestDatabase('keys_missing_migration', migrationsUpTo('0002_agent_instances'));
  auth = await startAuth(database.url, { MIGRATE_ON_START: 'false' });
}, 2 * AUTH_START_TIMEOUT_MS);

afterAll(async () => {
  await auth?.stop();
  await database?.drop();
});

function runMigrate(): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'services/auth/src/db/migrate-cli.ts')], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url },
  });
}

it('answers unavailable naming the missing migration on every key RPC', async () => {
  const { organization, owner } = await seedOrganizationWithRoles(database.db);
  const actor = { actorUserId: owner, organizationId: organization.id };
  const someKeyId = '00000000-0000-4000-8000-000000000000';
  const failures = await Promise.all([
    failureOf(auth.client.listApiKeys(actor)),
    failureOf(auth.client.createApiKey({ ...actor, name: 'k', agentId: '' })),
    failureOf(auth.client.updateApiKey({ ...actor, apiKeyId: someKeyId, name: 'k' })),
    failureOf(auth.client.revokeApiKey({ ...actor, apiKeyId: someKeyId })),
    failureOf(auth.client.authenticate({ credential: `svc_test_${'a'.repeat(56)}`, agentId: '' })),
  ]);
  for (const failure of failures) {
    expect(failure.kind).toBe('unavailable');
    expect(failure.httpStatus).toBe(503);
    expect(failure.message).toContain(`"${API_KEYS_MIGRATION}"`);
    expect(failure.message).toContain('npm run migrate');
  }
  expect(API_KEYS_MIGRATION).toBe('0003_api_keys');
});

it('still authenticates legacy credentials, which do not need the keys tables', async () => {
  const { organization } = await seedOrganizationWithRoles(database.db);
  const agent = await seedAgent(database.db, organization.id);
  const token = await issueGatewayToken(database.db, agent.id);
  const { principal } = await auth.client.authenticate({ credential: token, agentId: '' });
  expect(principal?.agentId).toBe(agent.id);
});

it('serves keys once `npm run migrate` has applied the migration, which it reports', async () => {
  const first = await runMigrate();
  expect(first.stdout).toBe(`schema auth: applied ${API_KEYS_MIGRATION}\n`);
  const again = await runMigrate();
  expect(again.stdout).toBe('schema auth: up to date\n');

  const { organization, owner } = await seedOrganizationWithRoles(database.db);
  const actor = { actorUserId: owner, organizationId: organization.id };
  expect(await auth.client.listApiKeys(actor)).toEqual({ active: [], revoked: [] });
  const created = await auth.client.createApiKey({ ...actor, name: 'after migrate', agentId: '' });
  await expect(auth.client.authenticate({ credential: created.secret, agentId: '' })).resolves.toBeDefined();
});

it('leaves no credential-shaped string in the process logs', async () => {
  await auth.stop();
  expect(findCredentials(auth.process.logs())).toEqual([]);
});
