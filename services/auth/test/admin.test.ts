import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { decryptSecret } from '@gateway/lib/cipher';
import { connectDatabase, type Database } from '@gateway/lib/db';
import { principalInvalidationChannels } from '@gateway/lib/principal-invalidation';
import { createRedis } from '@gateway/lib/redis';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../../../test/support/databases';
import { REPO_ROOT } from '../../../test/support/paths';
import { findCredentials } from '../../../test/support/secrets-scan';
import { addMember, createAgent, createUser } from '../src/admin/commands';
import { AUTH_SCHEMA, type AuthDatabase } from '../src/db';
import { verifyPassword } from '../src/identity/passwords';
import { clearRedisPrefix, uniquePrefix } from '../../ledger/test/support/ledger';
import { unique } from './support/identity-fixtures';

/**
 * `npm run admin` as a real process against a fresh database: the CLI runs
 * the migrations itself, prints JSON, and refuses bad input with status 2
 * and a message naming the flag and what it allows. Rows a test only needs
 * as a starting point are made with the same functions, in process.
 */
const CLI = join(REPO_ROOT, 'services/auth/src/admin/cli.ts');
// Every command is a fresh Node process; on a busy machine a handful of them outlast the default timeout.
jest.setTimeout(120_000);
const SECRETS_KEY = randomBytes(32).toString('hex');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

let database: TestDatabase;
let inspect: Database<AuthDatabase>;
/** An organization with an owner, shared by the tests that only add to it. */
let acme: Awaited<ReturnType<typeof bootstrap>>;

function admin(args: string[], { env = {}, stdin }: { env?: Record<string, string>; stdin?: string } = {}): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(stdin);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs a command that must succeed and returns its JSON result. */
async function ok<T = Record<string, unknown>>(args: string[], options?: Parameters<typeof admin>[1]): Promise<T> {
  const run = await admin(args, options);
  // Credentials go to stdout, once; stderr carries only notes and errors.
  expect(findCredentials(run.stderr)).toEqual([]);
  if (run.status !== 0) throw new Error(`admin ${args[0]} exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at /m);

beforeAll(async () => {
  database = await createTestDatabase('admin');
  inspect = connectDatabase<AuthDatabase>({ kind: 'postgres', url: database.url, poolSize: 2 }, AUTH_SCHEMA);
  acme = await bootstrap('pro');
});

afterAll(async () => {
  await inspect?.destroy();
  await database?.drop();
});

/** An organization with an owner, made through the CLI. */
async function bootstrap(plan = 'pro') {
  const organization = await ok<{ id: string; name: string; plan: string }>(['create-org', '--name', unique('Acme'), '--plan', plan]);
  const email = `${unique('owner')}@example.test`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const run = await admin(['create-user', '--email', email, '--password', password]);
  expect(run.status).toBe(0);
  expect(run.stdout + run.stderr).not.toContain(password);
  const user = JSON.parse(run.stdout) as { id: string; email: string };
  await ok(['add-member', '--org', organization.id, '--email', email, '--role', 'owner']);
  return { organization, user, email, password };
}

describe('admin command line', () => {
  it('lists every command and its flags on help', async () => {
    const run = await admin(['help']);
    expect(run.status).toBe(0);
    for (const command of ['create-org', 'set-plan', 'set-allowance', 'grant-credits', 'list-credits', 'quota', 'create-user', 'add-member', 'create-agent', 'delete-agent', 'issue-gateway-token', 'issue-agent-secret', 'create-key']) {
      expect(run.stdout).toContain(command);
    }
    for (const flag of ['--plan', '--password-stdin', '--role', '--owner-email', '--messages-limit', '--provider-key', '--actor-email', '--expires-in-days']) {
      expect(run.stdout).toContain(flag);
    }
  });

  it('migrates schema auth of a fresh database before its first command', async () => {
    const fresh = await createTestDatabase('admin_fresh');
    try {
      const first = await admin(['create-org', '--name', 'Fresh', '--plan', 'free'], { env: { DATABASE_URL: fresh.url } });
      expect(first.status).toBe(0);
      expect(first.stderr).toContain('migrations applied: 0001_identity, 0002_agent_instances, 0003_api_keys');
      expect(JSON.parse(first.stdout)).toMatchObject({ name: 'Fresh', plan: 'free' });
      const second = await admin(['create-org', '--name', 'Again', '--plan', 'free'], { env: { DATABASE_URL: fresh.url } });
      expect(second.status).toBe(0);
      expect(second.stderr).not.toContain('migrations applied');
    } finally {
      await fresh.drop();
    }
  });

  it('bootstraps an organization, a user who can sign in, and a membership', async () => {
    const { organization, user, email, password } = await bootstrap('starter');
    expect(organization.plan).toBe('starter');
    expect(user.email).toBe(email);

    const stored = await inspect.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^scrypt\$/);
    await expect(verifyPassword(password, stored.password_hash)).resolves.toBe(true);
    const membership = await inspect.db
      .selectFrom('memberships')
      .select('role')
      .where('organization_id', '=', organization.id)
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(membership.role).toBe('owner');

    // add-member again changes the role.
    await ok(['add-member', '--org', organization.id, '--email', email.toUpperCase(), '--role', 'member']);
    const changed = await inspect.db.selectFrom('memberships').select('role').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    expect(changed.role).toBe('member');
  });

  it('takes the password from ADMIN_PASSWORD or stdin instead of a flag', async () => {
    const fromEnv = { email: `${unique('env')}@example.test`, password: 'from-the-environment' };
    const fromStdin = { email: `${unique('stdin')}@example.test`, password: 'piped in on stdin' };
    const viaEnv = await admin(['create-user', '--email', fromEnv.email], { env: { ADMIN_PASSWORD: fromEnv.password } });
    const viaStdin = await admin(['create-user', '--email', fromStdin.email, '--password-stdin'], { stdin: `${fromStdin.password}\n` });
    for (const [run, { password }] of [
      [viaEnv, fromEnv],
      [viaStdin, fromStdin],
    ] as const) {
      expect(run.status).toBe(0);
      expect(run.stdout + run.stderr).not.toContain(password);
      const created = JSON.parse(run.stdout) as { id: string };
      const stored = await inspect.db.selectFrom('users').select('password_hash').where('id', '=', created.id).executeTakeFirstOrThrow();
      await expect(verifyPassword(password, stored.password_hash)).resolves.toBe(true);
    }
  });

  it('creates a managed agent record with the plan defaults', async () => {
    const { organization, email, user } = acme;
    const agent = await ok<Record<string, unknown>>(['create-agent', '--org', organization.id, '--owner-email', email, '--region', 'eu-north']);
    expect(agent).toMatchObject({
      organizationId: organization.id,
      ownerUserId: user.id,
      model: 'auto',
      plan: 'pro',
      // The catalog's pro plan allows 100,000 BYOK requests a month.
      messagesLimit: 100_000,
      tier: 'starter',
      region: 'eu-north',
      mode: 'managed',
    });
    const stored = await inspect.db.selectFrom('agent_instances').selectAll().where('id', '=', agent.id as string).executeTakeFirstOrThrow();
    expect(stored.provider_key_ciphertext).toBeNull();
    expect(stored.server_region).toBe('eu-north');
  });

  it('creates a BYOK agent record with the provider key encrypted under SECRETS_KEY', async () => {
    const { organization } = acme;
    const providerKey = `sk-provider-${randomBytes(12).toString('hex')}`;
    const run = await admin(
      ['create-agent', '--org', organization.id, '--provider-key', providerKey, '--plan', 'starter', '--messages-limit', '250', '--model', 'gpt-4o-mini'],
      { env: { SECRETS_KEY } },
    );
    expect(run.status).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(providerKey);
    const agent = JSON.parse(run.stdout) as { id: string; mode: string; messagesLimit: number; plan: string };
    expect(agent).toMatchObject({ mode: 'byok', messagesLimit: 250, plan: 'starter' });

    const stored = await inspect.db.selectFrom('agent_instances').selectAll().where('id', '=', agent.id).executeTakeFirstOrThrow();
    expect(stored.provider_key_ciphertext).not.toContain(providerKey);
    expect(decryptSecret(stored.provider_key_ciphertext ?? '', Buffer.from(SECRETS_KEY, 'hex'), agent.id)).toBe(providerKey);

    const withoutKey = await admin(['create-agent', '--org', organization.id, '--provider-key', providerKey]);
    expect(withoutKey.status).toBe(2);
    expect(withoutKey.stderr).toContain('--provider-key');
    expect(withoutKey.stderr).toContain('SECRETS_KEY');
    expect(withoutKey.stderr).not.toContain(providerKey);
  });

  it('issues legacy credentials once, storing only their hashes', async () => {
    const agent = await createAgent(inspect.db, { org: acme.organization.id });

    const token = await admin(['issue-gateway-token', '--agent', agent.id]);
    expect(token.status).toBe(0);
    const { gatewayToken } = JSON.parse(token.stdout) as { gatewayToken: string };
    expect(gatewayToken).toMatch(/^gwt_[0-9a-f]{48}$/);
    expect(findCredentials(token.stdout)).toEqual([gatewayToken]);
    expect(findCredentials(token.stderr)).toEqual([]);
    const stored = await inspect.db.selectFrom('agent_instances').select('gateway_token_hash').where('id', '=', agent.id).executeTakeFirstOrThrow();
    expect(stored.gateway_token_hash).toBe(sha256(gatewayToken));

    const description = unique('billing worker');
    const secretRun = await admin(['issue-agent-secret', '--description', description]);
    expect(secretRun.status).toBe(0);
    const { agentSecret } = JSON.parse(secretRun.stdout) as { agentSecret: string };
    expect(agentSecret).toMatch(/^pas_[0-9a-f]{48}$/);
    expect(findCredentials(secretRun.stdout)).toEqual([agentSecret]);
    expect(findCredentials(secretRun.stderr)).toEqual([]);
    const secretRow = await inspect.db
      .selectFrom('platform_agent_secrets')
      .select('secret_hash')
      .where('description', '=', description)
      .executeTakeFirstOrThrow();
    expect(secretRow.secret_hash).toBe(sha256(agentSecret));
  });

  it('creates an API key for an owner, bound to an agent record, and deleting the record unbinds it', async () => {
    const { organization, email } = acme;
    const agent = await createAgent(inspect.db, { org: organization.id });
    const run = await admin([
      'create-key',
      '--org',
      organization.id,
      '--actor-email',
      email,
      '--name',
      'CI',
      '--scopes',
      'inference',
      '--agent',
      agent.id,
      '--expires-in-days',
      '30',
    ]);
    expect(run.status).toBe(0);
    const created = JSON.parse(run.stdout) as { apiKey: { id: string; prefix: string; scopes: string[]; agentId: string }; key: string };
    expect(created.key).toMatch(/^svc_test_[0-9a-f]{56}$/);
    expect(findCredentials(run.stdout)).toEqual([created.key]);
    expect(findCredentials(run.stderr)).toEqual([]);
    expect(created.apiKey).toMatchObject({ prefix: created.key.slice(0, 17), scopes: ['inference'], agentId: agent.id });
    const stored = await inspect.db.selectFrom('api_keys').selectAll().where('id', '=', created.apiKey.id).executeTakeFirstOrThrow();
    expect(stored.secret_hash).toBe(sha256(created.key));

    const deleted = await ok(['delete-agent', '--org', organization.id, '--agent', agent.id]);
    expect(deleted).toEqual({ organizationId: organization.id, agentId: agent.id, deleted: true });
    const unbound = await inspect.db.selectFrom('api_keys').select('agent_id').where('id', '=', created.apiKey.id).executeTakeFirstOrThrow();
    expect(unbound.agent_id).toBeNull();

    const again = await admin(['delete-agent', '--org', organization.id, '--agent', agent.id]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('not found');
    noStackTrace(again.stderr);
  });

  it('tells edge replicas at once when an agent record changes, given Redis; else says when they will know', async () => {
    const { organization } = acme;
    const prefix = `admin-test-${randomBytes(4).toString('hex')}`;
    const channels = principalInvalidationChannels(prefix);
    // A stand-in for one edge replica: hears the invalidation and acknowledges it.
    const replica = createRedis(testRedisUrl());
    const acknowledger = createRedis(testRedisUrl());
    const heard: unknown[] = [];
    replica.on('message', (_channel: string, text: string) => {
      const invalidation = JSON.parse(text) as { id: string; organizationId: string };
      heard.push(invalidation.organizationId);
      void acknowledger.publish(channels.acknowledgements, JSON.stringify({ id: invalidation.id, replica: 'edge-under-test' }));
    });
    await replica.subscribe(channels.invalidations);
    try {
      const agent = await createAgent(inspect.db, { org: organization.id });
      const env = { REDIS_URL: testRedisUrl(), PRINCIPAL_EVENTS_PREFIX: prefix };
      const token = await admin(['issue-gateway-token', '--agent', agent.id], { env });
      expect(token.status).toBe(0);
      await ok(['delete-agent', '--org', organization.id, '--agent', agent.id], { env });
      expect(heard).toEqual([organization.id, organization.id]);

      const withoutRedis = await createAgent(inspect.db, { org: organization.id });
      const run = await admin(['delete-agent', '--org', organization.id, '--agent', withoutRedis.id]);
      expect(run.status).toBe(0);
      expect(run.stderr).toContain('PRINCIPAL_CACHE_TTL_MS');
      expect(heard).toHaveLength(2);
    } finally {
      replica.disconnect();
      acknowledger.disconnect();
    }
  });

  it('moves an organization to another plan, grants credits and shows its quota where the ledger keeps them', async () => {
    const prefix = uniquePrefix('admin');
    const ledger = { REDIS_URL: testRedisUrl(), LEDGER_REDIS_KEY_PREFIX: prefix };
    try {
      const { organization } = await bootstrap('free');
      const spend = await ok(['quota', '--org', organization.id], { env: ledger });
      // $1.00 as the integer and as the exact decimal string; nothing spent or held yet.
      expect(spend).toMatchObject({
        organization_id: organization.id,
        plan: 'free',
        meter: 'spend',
        allowance_micros: '1000000',
        allowance_usd: '1.000000',
        spent_micros: '0',
        held_micros: '0',
        remaining_usd: '1.000000',
      });
      const now = new Date();
      expect(spend.resets_at).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());

      // Its own allowance, to the micro-dollar as written: the loaded month takes it at once,
      // and a store that loads the month afresh (another prefix: an empty Redis) reads it from Postgres.
      expect(await ok(['set-allowance', '--org', organization.id, '--usd', '12.345678'], { env: ledger })).toMatchObject({
        monthly_allowance: { micros: '12345678', usd: '12.345678' },
        counted_now: true,
      });
      expect(await ok(['quota', '--org', organization.id], { env: ledger })).toMatchObject({ allowance_micros: '12345678', remaining_usd: '12.345678' });
      const fresh = { ...ledger, LEDGER_REDIS_KEY_PREFIX: `${prefix}-fresh` };
      expect(await ok(['quota', '--org', organization.id], { env: fresh })).toMatchObject({ allowance_usd: '12.345678' });
      expect(await ok(['set-allowance', '--org', organization.id, '--usd', 'plan'], { env: ledger })).toMatchObject({ monthly_allowance: 'plan' });
      expect(await ok(['quota', '--org', organization.id], { env: ledger })).toMatchObject({ allowance_usd: '1.000000' });
      await clearRedisPrefix(testRedisUrl(), `${prefix}-fresh`);

      expect(await ok(['set-plan', '--org', organization.id, '--plan', 'legacy_basic'])).toMatchObject({ plan: 'legacy_basic', previous_plan: 'free' });
      const expiresAt = '2099-01-31T00:00:00.000Z';
      const granted = await ok<{ credit: { id: string; amount: number; remaining: number; expires_at: string } }>(
        ['grant-credits', '--org', organization.id, '--amount', '50', '--expires-at', expiresAt],
        { env: ledger },
      );
      expect(granted.credit).toMatchObject({ amount: 50, remaining: 50, expires_at: expiresAt });
      await ok(['grant-credits', '--org', organization.id, '--amount', '7'], { env: ledger });
      const listed = await ok<{ credits: Array<{ amount: number; expires_at: string | null }> }>(['list-credits', '--org', organization.id], { env: ledger });
      expect(listed.credits.map(({ amount, expires_at }) => ({ amount, expires_at }))).toEqual([
        { amount: 7, expires_at: null },
        { amount: 50, expires_at: expiresAt },
      ]);
      expect(await ok(['quota', '--org', organization.id], { env: ledger })).toMatchObject({
        plan: 'legacy_basic',
        meter: 'legacy',
        limit: '1000',
        used: '0',
        credits: '57',
        remaining: '1057',
      });
    } finally {
      await clearRedisPrefix(testRedisUrl(), prefix);
    }
  });

  it('refuses money commands without the ledger\'s Redis, and amounts that are not whole numbers', async () => {
    const noRedis = await admin(['quota', '--org', acme.organization.id]);
    expect(noRedis.status).toBe(2);
    expect(noRedis.stderr).toContain('REDIS_URL: is required');
    const fraction = await admin(['grant-credits', '--org', acme.organization.id, '--amount', '1.5'], { env: { REDIS_URL: testRedisUrl() } });
    expect(fraction.status).toBe(2);
    expect(fraction.stderr).toContain('--amount: must be a whole number');
    for (const usd of ['0.1234567', '1e3', '5.', '12,50']) {
      const allowance = await admin(['set-allowance', '--org', acme.organization.id, '--usd', usd], { env: { REDIS_URL: testRedisUrl() } });
      expect({ usd, status: allowance.status }).toEqual({ usd, status: 2 });
      expect(allowance.stderr).toContain('--usd: must be an amount in USD with at most 6 decimal places');
    }
    const plan = await admin(['set-plan', '--org', acme.organization.id, '--plan', 'platinum']);
    expect(plan.status).toBe(2);
    expect(plan.stderr).toContain('--plan: must be one of free, starter');
  });

  it('refuses an API key for a member who is not an owner or admin', async () => {
    const { organization } = acme;
    const memberEmail = `${unique('member')}@example.test`;
    await createUser(inspect.db, { email: memberEmail, password: 'member-password' });
    await addMember(inspect.db, { org: organization.id, email: memberEmail, role: 'member' });
    const run = await admin(['create-key', '--org', organization.id, '--actor-email', memberEmail]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('owner or an admin');
    expect(findCredentials(run.stdout + run.stderr)).toEqual([]);
  });

  it('refuses a duplicate user and unknown references without a stack trace', async () => {
    const { organization, email } = acme;
    const duplicate = await admin(['create-user', '--email', email, '--password', 'another-password']);
    expect(duplicate.status).toBe(1);
    expect(duplicate.stderr).toContain('already exists');

    const unknownUser = await admin(['add-member', '--org', organization.id, '--email', 'ghost@example.test', '--role', 'admin']);
    expect(unknownUser.status).toBe(1);
    expect(unknownUser.stderr).toContain('--email');

    const outsider = `${unique('outsider')}@example.test`;
    await createUser(inspect.db, { email: outsider, password: 'outsider-password' });
    const notMember = await admin(['create-agent', '--org', organization.id, '--owner-email', outsider]);
    expect(notMember.status).toBe(2);
    expect(notMember.stderr).toContain('--owner-email');
    for (const run of [duplicate, unknownUser, notMember]) noStackTrace(run.stderr);
  });

  it('refuses bad input with status 2, naming the flag and what it allows, without a stack trace', async () => {
    const unknownOrg = '00000000-0000-4000-8000-000000000000';
    const cases: Array<[string[], string[]]> = [
      [['create-org', '--name', 'Acme', '--plan', 'gold'], ['--plan', 'free, starter, pro, enterprise']],
      [['create-org', '--plan', 'pro'], ['--name']],
      [['create-user', '--email', 'not-an-email', '--password', 'long-enough'], ['--email', 'email address']],
      [['create-user', '--email', 'ok@example.test', '--password', 'short'], ['--password', 'at least 8 characters']],
      [['create-user', '--email', 'ok@example.test'], ['--password', '--password-stdin', 'ADMIN_PASSWORD']],
      [['add-member', '--org', unknownOrg, '--email', 'ok@example.test', '--role', 'boss'], ['--role', 'owner, admin, member']],
      [['add-member', '--org', 'acme', '--email', 'ok@example.test', '--role', 'owner'], ['--org', 'UUID']],
      [['create-agent', '--org', unknownOrg, '--tier', 'huge'], ['--tier', 'starter, standard, performance, enterprise']],
      [['create-agent', '--org', unknownOrg, '--messages-limit', 'lots'], ['--messages-limit', 'whole number']],
      [['create-key', '--org', unknownOrg, '--actor-email', 'ok@example.test', '--scopes', 'inference,admin'], ['--scopes', 'inference, usage:read, agents:read, agents:write']],
      [['create-key', '--org', unknownOrg, '--actor-email', 'ok@example.test', '--expires-in-days', '4000'], ['--expires-in-days', '3650']],
      [['create-org', '--name', 'Acme', '--plan', 'pro', '--colour', 'red'], ['--colour', '--name, --plan']],
      [['launch-rockets'], ['unknown command', 'create-org', 'create-key']],
      [[], ['name a command', 'create-org']],
    ];
    // Refused before any database work, so they can run side by side.
    const results = await Promise.all(cases.map(async ([args, mentions]) => ({ args, mentions, run: await admin(args) })));
    for (const { args, mentions, run } of results) {
      expect({ args, status: run.status, stdout: run.stdout }).toEqual({ args, status: 2, stdout: '' });
      for (const mention of mentions) expect({ args, stderr: run.stderr }).toEqual({ args, stderr: expect.stringContaining(mention) });
      noStackTrace(run.stderr);
    }
  });

  it('names DATABASE_URL when it is missing', async () => {
    const run = await admin(['create-org', '--name', 'Acme', '--plan', 'pro'], { env: { DATABASE_URL: '' } });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('DATABASE_URL');
    noStackTrace(run.stderr);
  });
});
