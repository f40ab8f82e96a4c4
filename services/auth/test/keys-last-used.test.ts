import { sql } from 'kysely';
import { connectDatabase } from '@gateway/lib/db';
import { findCredentials } from '../../../test/support/secrets-scan';
import { AUTH_SCHEMA, type AuthDatabase } from '../src/db';
import { touchLastUsed } from '../src/keys/last-used';
import { AUTH_START_TIMEOUT_MS, startAuthReplicas, type RunningAuth } from './support/auth-process';
import { createAuthTestDatabase, seedOrganizationWithRoles, type AuthTestDatabase } from './support/seed';

/**
 * last_used_at is written at most once a minute per key, and the database
 * statement itself enforces it, so racing replicas still write once.
 */
let database: AuthTestDatabase;
let replicaA: RunningAuth;
let replicaB: RunningAuth;

beforeAll(async () => {
  database = await createAuthTestDatabase('keys_last_used');
  // Counts real writes: the column moving forward (a test backdating it is not a write).
  await sql`create table auth.last_used_writes (api_key_id uuid not null)`.execute(database.db);
  await sql`
    create function auth.count_last_used_write() returns trigger language plpgsql as $$
    begin insert into auth.last_used_writes values (new.id); return new; end $$`.execute(database.db);
  await sql`
    create trigger api_keys_last_used_written after update of last_used_at on auth.api_keys for each row
    when (new.last_used_at is not null and (old.last_used_at is null or new.last_used_at > old.last_used_at))
    execute function auth.count_last_used_write()`.execute(database.db);
  [replicaA, replicaB] = (await startAuthReplicas(database.url, 2)) as [RunningAuth, RunningAuth];
}, 2 * AUTH_START_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all([replicaA?.stop(), replicaB?.stop()]);
  await database?.drop();
});

async function newKey() {
  const { organization, owner } = await seedOrganizationWithRoles(database.db);
  const created = await replicaA.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '' });
  return { id: created.apiKey?.id ?? '', secret: created.secret };
}

async function writesOf(keyId: string): Promise<number> {
  const result = await sql<{ count: string }>`select count(*) as count from auth.last_used_writes where api_key_id = ${keyId}`.execute(database.db);
  return Number(result.rows[0]?.count);
}

async function backdateLastUsed(keyId: string, seconds: number): Promise<void> {
  await database.db
    .updateTable('api_keys')
    .set({ last_used_at: sql<Date>`now() - make_interval(secs => ${seconds})` })
    .where('id', '=', keyId)
    .execute();
}

/** Waits until the key has `count` writes; a write is issued off the response path. */
async function untilWrites(keyId: string, count: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while ((await writesOf(keyId)) < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} last_used writes for ${keyId}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Room for a wrongly issued second write to land before counting. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('the statement', () => {
  it('writes only when the last write is a minute old or missing', async () => {
    const { id } = await newKey();
    expect(await touchLastUsed(database.db, id)).toBe(true);
    expect(await touchLastUsed(database.db, id)).toBe(false);
    await backdateLastUsed(id, 50);
    expect(await touchLastUsed(database.db, id)).toBe(false);
    await backdateLastUsed(id, 61);
    expect(await touchLastUsed(database.db, id)).toBe(true);
    expect(await writesOf(id)).toBe(2);
  });

  it('writes once when several connections race', async () => {
    const { id } = await newKey();
    const pools = Array.from({ length: 4 }, () => connectDatabase<AuthDatabase>({ kind: 'postgres', url: database.url, poolSize: 2 }, AUTH_SCHEMA));
    try {
      const outcomes = await Promise.all(pools.flatMap(({ db }) => [touchLastUsed(db, id), touchLastUsed(db, id)]));
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      expect(await writesOf(id)).toBe(1);
    } finally {
      await Promise.all(pools.map((pool) => pool.destroy()));
    }
  });
});

describe('through Authenticate', () => {
  it('writes once for two calls, and again once the last write is over a minute old', async () => {
    const { id, secret } = await newKey();
    await replicaA.client.authenticate({ credential: secret, agentId: '' });
    await untilWrites(id, 1);
    const stamped = await database.db.selectFrom('api_keys').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow();
    expect(stamped.last_used_at).toBeInstanceOf(Date);

    await replicaA.client.authenticate({ credential: secret, agentId: '' });
    await settle();
    expect(await writesOf(id)).toBe(1);

    await backdateLastUsed(id, 61);
    await replicaA.client.authenticate({ credential: secret, agentId: '' });
    await untilWrites(id, 2);
    await settle();
    expect(await writesOf(id)).toBe(2);
  });

  it('writes once when two replicas race on a fresh key', async () => {
    const { id, secret } = await newKey();
    const calls = [replicaA, replicaB].flatMap((replica) =>
      Array.from({ length: 10 }, () => replica.client.authenticate({ credential: secret, agentId: '' })),
    );
    await Promise.all(calls);
    await untilWrites(id, 1);
    await settle();
    expect(await writesOf(id)).toBe(1);
  });

  it('shows last_used_at in the listing', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const created = await replicaA.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '' });
    const id = created.apiKey?.id ?? '';
    expect(created.apiKey?.lastUsedAt).toBeUndefined();
    await replicaB.client.authenticate({ credential: created.secret, agentId: '' });
    await untilWrites(id, 1);
    const listing = await replicaA.client.listApiKeys({ actorUserId: owner, organizationId: organization.id });
    expect(listing.active[0]?.lastUsedAt).toBeInstanceOf(Date);
  });
});

it('leaves no credential-shaped string in either replica log', async () => {
  await Promise.all([replicaA.stop(), replicaB.stop()]);
  for (const replica of [replicaA, replicaB]) expect(findCredentials(replica.process.logs())).toEqual([]);
});
