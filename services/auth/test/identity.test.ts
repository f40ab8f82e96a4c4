import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { verifyAccessToken } from '@gateway/lib/access-token';
import type { DomainError } from '@gateway/lib/errors';
import { Role } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { findCredentials } from '../../../test/support/secrets-scan';
import { AUTH_START_TIMEOUT_MS, startAuth, type AuthClient, type RunningAuth } from './support/auth-process';
import { eventually, seedAccount, seedOrganization, uniqueSourceAddress, type SeededAccount } from './support/identity-fixtures';
import { createAuthTestDatabase, type AuthTestDatabase } from './support/seed';

/**
 * Sign-in, refresh rotation, sign-out and the user, through two real auth
 * processes sharing one database and one Redis.
 */
const ACCESS_TOKEN_SECRET = randomBytes(32).toString('hex');
const ACCESS_TOKEN_TTL_SECONDS = 600;
const MAX_FAILURES_PER_ACCOUNT_SOURCE = 3;
const MAX_FAILURES_PER_SOURCE = 5;
const MAX_FAILURES_PER_ACCOUNT = 8;
const WINDOW_SECONDS = 60;

let database: AuthTestDatabase;
let replicaA: RunningAuth;
let replicaB: RunningAuth;
let a: AuthClient;
let b: AuthClient;
let owner: SeededAccount;
let organizations: { main: { id: string; name: string }; side: { id: string; name: string } };

beforeAll(async () => {
  database = await createAuthTestDatabase('identity');
  organizations = { main: await seedOrganization(database.db, 'pro'), side: await seedOrganization(database.db, 'starter') };
  owner = await seedAccount(database.db, [
    { organizationId: organizations.main.id, role: 'owner' },
    { organizationId: organizations.side.id, role: 'member' },
  ]);
  const env = {
    ACCESS_TOKEN_SECRET,
    ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TOKEN_TTL_SECONDS),
    LOGIN_MAX_FAILURES_PER_ACCOUNT_SOURCE: String(MAX_FAILURES_PER_ACCOUNT_SOURCE),
    LOGIN_MAX_FAILURES_PER_SOURCE: String(MAX_FAILURES_PER_SOURCE),
    LOGIN_MAX_FAILURES_PER_ACCOUNT: String(MAX_FAILURES_PER_ACCOUNT),
    LOGIN_THROTTLE_WINDOW_SECONDS: String(WINDOW_SECONDS),
  };
  [replicaA, replicaB] = await Promise.all([startAuth(database.url, env), startAuth(database.url, env)]);
  a = replicaA.client;
  b = replicaB.client;
}, 2 * AUTH_START_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all([replicaA?.stop(), replicaB?.stop()]);
  await database?.drop();
});

async function rejection(call: Promise<unknown>): Promise<DomainError> {
  try {
    await call;
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected the call to be rejected');
}

/** What a caller can observe of a failure. */
const visible = (error: DomainError) => ({
  kind: error.kind,
  message: error.message,
  field: error.field,
  retryAfterSeconds: error.retryAfterSeconds,
});

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** Each login costs a deliberate scrypt; on a busy machine that can outlast the client's default deadline. */
const LOGIN_DEADLINE = { deadlineMs: 15_000 };

function signIn(client: AuthClient, account: Pick<SeededAccount, 'email' | 'password'>, sourceAddress = uniqueSourceAddress()) {
  return client.login({ email: account.email, password: account.password, sourceAddress }, LOGIN_DEADLINE);
}

async function refreshTokenOf(client: AuthClient, account: SeededAccount): Promise<string> {
  const { session } = await signIn(client, account);
  if (!session) throw new Error('login returned no session');
  return session.refreshToken;
}

describe('Login', () => {
  it('opens a session: a verifiable access token, an opaque refresh token stored hashed, the user and memberships', async () => {
    const { session } = await signIn(a, { email: `  ${owner.email.toUpperCase()} `, password: owner.password });
    if (!session) throw new Error('no session');

    await expect(verifyAccessToken(session.accessToken, ACCESS_TOKEN_SECRET)).resolves.toEqual({ userId: owner.userId, email: owner.email });
    expect(session.expiresInSeconds).toBe(ACCESS_TOKEN_TTL_SECONDS);
    expect(session.refreshToken).toMatch(/^rt_[0-9a-f]{64}$/);
    expect(session.user?.id).toBe(owner.userId);
    expect(session.user?.email).toBe(owner.email);
    expect(session.user?.memberships).toEqual(
      expect.arrayContaining([
        { organizationId: organizations.main.id, organizationName: organizations.main.name, role: Role.ROLE_OWNER, planTier: 'pro' },
        { organizationId: organizations.side.id, organizationName: organizations.side.name, role: Role.ROLE_MEMBER, planTier: 'starter' },
      ]),
    );
    expect(session.user?.memberships).toHaveLength(2);

    const stored = await database.db
      .selectFrom('refresh_tokens')
      .selectAll()
      .where('token_hash', '=', sha256(session.refreshToken))
      .executeTakeFirstOrThrow();
    expect(stored.user_id).toBe(owner.userId);
    expect(stored.rotated_at).toBeNull();
    expect(stored.revoked_at).toBeNull();
    const daysLeft = (stored.expires_at.getTime() - stored.created_at.getTime()) / 86_400_000;
    expect(Math.round(daysLeft)).toBe(30);
    const leaked = await database.db.selectFrom('refresh_tokens').select('id').where('token_hash', '=', session.refreshToken).execute();
    expect(leaked).toEqual([]);
  });

  it('gives a wrong password and an unknown email the very same error', async () => {
    const wrongPassword = await rejection(signIn(a, { email: owner.email, password: 'not-the-password' }));
    const unknownEmail = await rejection(signIn(a, { email: `nobody-${randomUUID()}@example.test`, password: owner.password }));
    expect(visible(wrongPassword)).toEqual({ kind: 'auth', message: 'Invalid email or password.', field: undefined, retryAfterSeconds: undefined });
    expect(visible(unknownEmail)).toEqual(visible(wrongPassword));
  });

  it('names the field of malformed input', async () => {
    const valid = { email: owner.email, password: owner.password, sourceAddress: uniqueSourceAddress() };
    const cases: Array<[Partial<typeof valid>, string]> = [
      [{ email: 'not-an-email' }, 'email'],
      [{ email: '' }, 'email'],
      [{ password: '' }, 'password'],
      [{ password: 'x'.repeat(1025) }, 'password'],
      [{ sourceAddress: 'somewhere' }, 'source_address'],
      [{ sourceAddress: '' }, 'source_address'],
    ];
    for (const [change, field] of cases) {
      const error = await rejection(a.login({ ...valid, ...change }, LOGIN_DEADLINE));
      expect(error.kind).toBe('validation');
      expect(error.field).toBe(field);
      expect(error.message).toContain(`${field}:`);
    }
  });
});

describe('failed-login throttle', () => {
  function expectSlowedDown(blocked: DomainError) {
    expect(blocked.kind).toBe('rate_limit');
    expect(blocked.retryAfterSeconds).toBeGreaterThan(0);
    expect(blocked.retryAfterSeconds).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(blocked.message).toBe(`Too many failed sign-in attempts. Try again in ${blocked.retryAfterSeconds} seconds.`);
  }

  it('slows down one source guessing one account, before looking at the password', async () => {
    const victim = await seedAccount(database.db);
    const stranger = uniqueSourceAddress();
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT_SOURCE; i += 1) {
      expect((await rejection(signIn(a, { ...victim, password: `guess-${i}` }, stranger))).kind).toBe('auth');
    }
    expectSlowedDown(await rejection(signIn(a, victim, stranger)));
  });

  it('does not lock the owner out: a stranger’s failures leave the owner’s address signing in', async () => {
    const owner = await seedAccount(database.db);
    const ownersAddress = uniqueSourceAddress();
    await signIn(a, owner, ownersAddress);
    const stranger = uniqueSourceAddress();
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT_SOURCE; i += 1) await rejection(signIn(a, { ...owner, password: `guess-${i}` }, stranger));
    expect((await rejection(signIn(a, owner, stranger))).kind).toBe('rate_limit');
    await expect(signIn(a, owner, ownersAddress)).resolves.toHaveProperty('session.user.id', owner.userId);
    // Nor a new address of the owner’s, while the account is below its ceiling.
    await expect(signIn(a, owner)).resolves.toHaveProperty('session.user.id', owner.userId);
  });

  it('caps guesses at one account from many sources, except from sources it signed in from', async () => {
    const owner = await seedAccount(database.db);
    const ownersAddress = uniqueSourceAddress();
    await signIn(a, owner, ownersAddress);
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT; i += 1) {
      expect((await rejection(signIn(a, { ...owner, password: `guess-${i}` }))).kind).toBe('auth');
    }
    expectSlowedDown(await rejection(signIn(a, owner)));
    await expect(signIn(a, owner, ownersAddress)).resolves.toHaveProperty('session.user.id', owner.userId);
  });

  it('blocks a source address after its limit of failures across accounts', async () => {
    const source = uniqueSourceAddress();
    for (let i = 0; i < MAX_FAILURES_PER_SOURCE; i += 1) {
      const error = await rejection(signIn(a, { email: `probe-${i}-${randomUUID()}@example.test`, password: 'guess' }, source));
      expect(error.kind).toBe('auth');
    }
    const account = await seedAccount(database.db);
    expectSlowedDown(await rejection(signIn(a, account, source)));
    // The same account from elsewhere is not affected.
    await expect(signIn(a, account)).resolves.toHaveProperty('session.user.id', account.userId);
  });

  it('counts failures per IPv6 /64, not per address', async () => {
    const block = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
    for (let i = 1; i <= MAX_FAILURES_PER_SOURCE; i += 1) {
      await rejection(signIn(a, { email: `probe-${randomUUID()}@example.test`, password: 'guess' }, `${block}::${i}`));
    }
    const account = await seedAccount(database.db);
    expect((await rejection(signIn(a, account, `${block}::ffff`))).kind).toBe('rate_limit');
  });

  it('forgets the failures of the account and of the pair after a successful sign-in', async () => {
    const account = await seedAccount(database.db);
    const source = uniqueSourceAddress();
    const failFrom = (address: string) => rejection(signIn(a, { ...account, password: 'wrong' }, address));
    for (let i = 1; i < MAX_FAILURES_PER_ACCOUNT_SOURCE; i += 1) await failFrom(source);
    for (let i = MAX_FAILURES_PER_ACCOUNT_SOURCE; i < MAX_FAILURES_PER_ACCOUNT; i += 1) await failFrom(uniqueSourceAddress());
    await signIn(a, account, source);
    for (let i = 1; i < MAX_FAILURES_PER_ACCOUNT_SOURCE; i += 1) await failFrom(source);
    for (let i = MAX_FAILURES_PER_ACCOUNT_SOURCE; i < MAX_FAILURES_PER_ACCOUNT; i += 1) await failFrom(uniqueSourceAddress());
    // Twice the limits in the window, but under them since the success, from the pair and from a new source.
    await expect(signIn(a, account, source)).resolves.toHaveProperty('session.user.id', account.userId);
    await expect(signIn(a, account)).resolves.toHaveProperty('session.user.id', account.userId);
  });

  it('is shared by every replica: failures on one block sign-in on the other', async () => {
    const account = await seedAccount(database.db);
    const source = uniqueSourceAddress();
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT_SOURCE; i += 1) await rejection(signIn(a, { ...account, password: 'wrong' }, source));
    const blocked = await rejection(signIn(b, account, source));
    expect(blocked.kind).toBe('rate_limit');
    expect(blocked.retryAfterSeconds).toBeGreaterThan(0);
  });
});

describe('RefreshSession', () => {
  it('rotates: a new refresh token of the same family, a fresh access token, the old token spent', async () => {
    const first = await refreshTokenOf(a, owner);
    const { session } = await b.refreshSession({ refreshToken: first, sourceAddress: uniqueSourceAddress() });
    if (!session) throw new Error('no session');
    expect(session.refreshToken).toMatch(/^rt_[0-9a-f]{64}$/);
    expect(session.refreshToken).not.toBe(first);
    await expect(verifyAccessToken(session.accessToken, ACCESS_TOKEN_SECRET)).resolves.toEqual({ userId: owner.userId, email: owner.email });
    expect(session.user?.memberships).toHaveLength(2);

    const rows = await database.db
      .selectFrom('refresh_tokens')
      .select(['token_hash', 'family_id', 'rotated_at', 'revoked_at'])
      .where('token_hash', 'in', [sha256(first), sha256(session.refreshToken)])
      .execute();
    const old = rows.find((row) => row.token_hash === sha256(first));
    const next = rows.find((row) => row.token_hash === sha256(session.refreshToken));
    expect(old?.family_id).toBe(next?.family_id);
    expect(old?.rotated_at).not.toBeNull();
    expect(next?.rotated_at).toBeNull();

    // The chain goes on, on either replica.
    await expect(a.refreshSession({ refreshToken: session.refreshToken, sourceAddress: '' })).resolves.toHaveProperty('session.user.id', owner.userId);
  });

  it('treats reuse of a spent token as theft: rejects it and revokes the whole family', async () => {
    const first = await refreshTokenOf(a, owner);
    const rotated = (await a.refreshSession({ refreshToken: first, sourceAddress: '' })).session?.refreshToken ?? '';

    const reuse = await rejection(b.refreshSession({ refreshToken: first, sourceAddress: '' }));
    expect(visible(reuse)).toEqual({
      kind: 'auth',
      message: 'Refresh token is invalid or expired. Sign in again.',
      field: undefined,
      retryAfterSeconds: undefined,
    });
    const afterTheft = await rejection(a.refreshSession({ refreshToken: rotated, sourceAddress: '' }));
    expect(visible(afterTheft)).toEqual(visible(reuse));

    const family = await database.db
      .selectFrom('refresh_tokens')
      .select('family_id')
      .where('token_hash', '=', sha256(first))
      .executeTakeFirstOrThrow();
    const live = await database.db
      .selectFrom('refresh_tokens')
      .select('id')
      .where('family_id', '=', family.family_id)
      .where('revoked_at', 'is', null)
      .execute();
    expect(live).toEqual([]);
    // Other sessions of the same user are untouched.
    await expect(a.refreshSession({ refreshToken: await refreshTokenOf(a, owner), sourceAddress: '' })).resolves.toHaveProperty('session');
  });

  it('lets exactly one of two concurrent refreshes with the same token succeed', async () => {
    const token = await refreshTokenOf(a, owner);
    const outcomes = await Promise.allSettled([
      a.refreshSession({ refreshToken: token, sourceAddress: '' }),
      b.refreshSession({ refreshToken: token, sourceAddress: '' }),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
  });

  it('rejects unknown, malformed and expired tokens alike, and an empty one as invalid input', async () => {
    const expired = await refreshTokenOf(a, owner);
    await database.db
      .updateTable('refresh_tokens')
      .set({ expires_at: new Date(Date.now() - 60_000) })
      .where('token_hash', '=', sha256(expired))
      .execute();
    const errors = await Promise.all(
      [`rt_${'0'.repeat(64)}`, 'not-a-token', expired].map((refreshToken) => rejection(a.refreshSession({ refreshToken, sourceAddress: '' }))),
    );
    for (const error of errors) expect(visible(error)).toEqual(visible(errors[0] as DomainError));
    expect(errors[0]?.kind).toBe('auth');

    const empty = await rejection(a.refreshSession({ refreshToken: '', sourceAddress: '' }));
    expect(empty.kind).toBe('validation');
    expect(empty.field).toBe('refresh_token');
  });
});

describe('Logout', () => {
  it('revokes the session family, is idempotent, and says nothing about unknown tokens', async () => {
    const first = await refreshTokenOf(a, owner);
    const second = (await a.refreshSession({ refreshToken: first, sourceAddress: '' })).session?.refreshToken ?? '';

    // Signing out with a spent token of the family still ends the whole session.
    await expect(b.logout({ refreshToken: first })).resolves.toEqual({});
    expect((await rejection(a.refreshSession({ refreshToken: second, sourceAddress: '' }))).kind).toBe('auth');
    await expect(a.logout({ refreshToken: second })).resolves.toEqual({});
    await expect(a.logout({ refreshToken: `rt_${randomBytes(32).toString('hex')}` })).resolves.toEqual({});
    await expect(a.logout({ refreshToken: 'whatever' })).resolves.toEqual({});

    const empty = await rejection(a.logout({ refreshToken: '' }));
    expect(empty.kind).toBe('validation');
    expect(empty.field).toBe('refresh_token');
  });
});

describe('GetUser', () => {
  it('returns the user with every membership', async () => {
    const { user } = await b.getUser({ userId: owner.userId });
    expect(user?.email).toBe(owner.email);
    expect(user?.memberships.map((membership) => [membership.organizationId, membership.role]).sort()).toEqual(
      [
        [organizations.main.id, Role.ROLE_OWNER],
        [organizations.side.id, Role.ROLE_MEMBER],
      ].sort(),
    );
  });

  it('returns a user without memberships with an empty list', async () => {
    const loner = await seedAccount(database.db);
    await expect(a.getUser({ userId: loner.userId })).resolves.toEqual({ user: { id: loner.userId, email: loner.email, memberships: [] } });
  });

  it('answers not_found for an unknown id and validation for a malformed one', async () => {
    expect((await rejection(a.getUser({ userId: randomUUID() }))).kind).toBe('not_found');
    const malformed = await rejection(a.getUser({ userId: 'me' }));
    expect(malformed.kind).toBe('validation');
    expect(malformed.field).toBe('user_id');
  });
});

describe('logs', () => {
  it('hold no credential, no password, and record a reuse without the token', async () => {
    const token = await refreshTokenOf(a, owner);
    await a.refreshSession({ refreshToken: token, sourceAddress: '' });
    await rejection(a.refreshSession({ refreshToken: token, sourceAddress: '' }));

    // Log lines reach the file asynchronously: wait for the warning, then read everything.
    await eventually(async () => (replicaA.process.logs().includes('refresh token reused') ? true : undefined));
    for (const text of [replicaA, replicaB].map((replica) => replica.process.logs())) {
      expect(findCredentials(text)).toEqual([]);
      expect(text).not.toContain(owner.password);
      expect(text).not.toContain(token.slice(3));
    }
  });
});
