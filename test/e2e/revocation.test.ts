import './support/catalog';
import { createPromiseClient, type PromiseClient } from '@gateway/lib/grpc';
import { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { ServiceProcess } from '../support/processes';
import { scrape, total } from '../support/prometheus';
import { eventually } from './support/eventually';
import { startE2e, type Caller, type E2e } from './support/harness';

/**
 * Two edge replicas in front of one auth: each keeps recent verifications
 * (so a repeat caller costs no call to auth), and a revoke or a scope edit
 * still takes effect on the very next request on both, because auth returns
 * only once every replica has dropped what it held.
 */
jest.setTimeout(90_000);

/** Short enough for a test to outlive a verification, long enough for auth to answer a refresh before it lapses on a busy machine. */
const CACHE_TTL_MS = 6000;

let e2e: E2e;
let secondEdge: ServiceProcess;
let auth: PromiseClient<typeof AuthServiceService>;
let replicas: string[];

beforeAll(async () => {
  e2e = await startE2e('e2e_revocation', { serviceEnv: { edge: { PRINCIPAL_CACHE_TTL_MS: String(CACHE_TTL_MS) } } });
  secondEdge = await e2e.stack.startReplica('edge');
  replicas = [e2e.gatewayUrl, `http://127.0.0.1:${secondEdge.port}/api/gateway/v1`];
  auth = createPromiseClient(AuthServiceService, { serviceName: 'auth', address: e2e.stack.services.auth.address, deadlineMs: 5000 });
});

afterAll(async () => {
  auth?.close();
  await e2e?.close();
});

async function chat(gatewayUrl: string, key: string): Promise<{ status: number; requestId: string }> {
  const response = await fetch(`${gatewayUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: 'Hello.' }] }),
  });
  await response.text();
  return { status: response.status, requestId: response.headers.get('x-service-request-id') ?? '' };
}

/** How edge says a request's credential was vouched for, from its request log line. */
async function verifiedBy(requestId: string): Promise<string> {
  const line = await eventually(async () => {
    const logs = [e2e.stack.services.edge.logs(), secondEdge.logs()].join('\n').split('\n');
    const found = logs.find((entry) => entry.includes(`"request_id":"${requestId}"`) && entry.includes('"msg":"request"'));
    return found === undefined ? undefined : (JSON.parse(found) as { verified_by?: string });
  }, `the request log line of ${requestId}`);
  return line.verified_by ?? '';
}

async function ownerIdOf(caller: Caller): Promise<string> {
  const owner = await e2e.auth.db.selectFrom('users').select('id').where('email', '=', caller.ownerEmail).executeTakeFirstOrThrow();
  return owner.id;
}

/** Two calls on each replica: the first is verified by auth, the second comes from that replica's cache. */
async function warm(key: string): Promise<void> {
  for (const replica of replicas) {
    const first = await chat(replica, key);
    const second = await chat(replica, key);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect([await verifiedBy(first.requestId), await verifiedBy(second.requestId)]).toEqual(['auth', 'cache']);
  }
}

it('ends access on every replica with the very next request once a revoke returns', async () => {
  const caller = await e2e.seed({ plan: 'simulated' });
  await warm(caller.key);

  await auth.revokeApiKey({ actorUserId: await ownerIdOf(caller), organizationId: caller.organizationId, apiKeyId: caller.keyId });

  const next = await Promise.all(replicas.map((replica) => chat(replica, caller.key)));
  expect(next.map(({ status }) => status)).toEqual([401, 401]);
});

it('applies edited scopes on every replica with the very next request', async () => {
  const caller = await e2e.seed({ plan: 'simulated' });
  await warm(caller.key);

  await auth.updateApiKey({ actorUserId: await ownerIdOf(caller), organizationId: caller.organizationId, apiKeyId: caller.keyId, scopes: { names: ['usage:read'] } });

  const next = await Promise.all(replicas.map((replica) => chat(replica, caller.key)));
  expect(next.map(({ status }) => status)).toEqual([403, 403]);
});

it('keeps other organizations’ verifications when one organization changes', async () => {
  const [changed, untouched] = await Promise.all([e2e.seed({ plan: 'simulated' }), e2e.seed({ plan: 'simulated' })]);
  await warm(untouched.key);

  await auth.revokeApiKey({ actorUserId: await ownerIdOf(changed), organizationId: changed.organizationId, apiKeyId: changed.keyId });

  for (const replica of replicas) {
    const call = await chat(replica, untouched.key);
    expect(call.status).toBe(200);
    expect(await verifiedBy(call.requestId)).toBe('cache');
  }
});

it('verifies a key in steady use again in the background: once cached, no call waits on auth', async () => {
  const caller = await e2e.seed({ plan: 'simulated' });
  const [replica = ''] = replicas;
  const first = await chat(replica, caller.key);
  expect(await verifiedBy(first.requestId)).toBe('auth');
  const verifiedBefore = Date.now();
  const authenticateCalls = async () => total((await scrape(e2e.stack.services.auth.metricsPort)).samples, 'rpc_server_duration_count', { rpc_method: 'Authenticate' });
  const before = await authenticateCalls();

  // Calls until the first verification has lapsed: without a refresh, the first call after it would wait on auth.
  const later: string[] = [];
  await eventually(
    async () => {
      const call = await chat(replica, caller.key);
      expect(call.status).toBe(200);
      later.push(call.requestId);
      return Date.now() - verifiedBefore > CACHE_TTL_MS + 500 ? true : undefined;
    },
    'the first verification to lapse',
    CACHE_TTL_MS * 3,
  );
  expect(new Set(await Promise.all(later.map(verifiedBy)))).toEqual(new Set(['cache']));
  // Calls to auth, in the background, shared by all the calls: one from half the TTL on, and
  // one more from half of the TTL that its answer started, when the calls reached it.
  const refreshes = (await authenticateCalls()) - before;
  expect(refreshes).toBeGreaterThanOrEqual(1);
  expect(refreshes).toBeLessThanOrEqual(2);
  expect(later.length).toBeGreaterThan(refreshes * 10);
});

it('logs no credential in any process', () => {
  expect(e2e.credentialsInLogs()).toEqual([]);
});
