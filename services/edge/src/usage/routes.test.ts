import { signAccessToken } from '@gateway/lib/access-token';
import { DomainError, INVALID_CREDENTIAL_MESSAGE, invalidCredential } from '@gateway/lib/errors';
import type { PromiseClient } from '@gateway/lib/grpc';
import { PrincipalKind, Role, type Principal } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { UsageGroupBy, type GetUsageRequest, type GetUsageResponse, type UsageServiceService } from '@gateway/proto/gen/gateway/usage/v1/usage';
import { ORG_ID, TEST_SECRET, USER_ID, startFakeEdge, type RunningFakeEdge } from '../../test/support/fake-auth';
import { call, expectError } from '../../test/support/http';
import { samplePrincipal } from '../../../../test/support/principals';

/**
 * The usage routes in front of fake auth and usage clients: who may ask,
 * what the query may say, and how a report becomes the JSON body. The
 * figures themselves are the usage service's (services/usage/test); the
 * whole path runs in test/e2e/usage.test.ts.
 */
const API_KEY = `svc_test_0a1b2c3d${'e'.repeat(48)}`;
const NARROW_KEY = `svc_test_1a1b2c3d${'e'.repeat(48)}`;
const OTHER_ORG = '2f0b4c3e-8d2a-4e6b-9c1d-2a3b4c5d6e7f';

function principal(scopes: string[], kind = PrincipalKind.PRINCIPAL_KIND_API_KEY): Principal {
  return samplePrincipal(ORG_ID, { kind, scopes, ...(kind === PrincipalKind.PRINCIPAL_KIND_API_KEY ? {} : { apiKeyId: '' }) });
}

const figures = (requests: string, costMicros: string, latency?: { p50: number; p95: number; p99: number }) => ({
  requests,
  errors: '1',
  failures: { provider: '1' },
  latencyMs: latency,
  costMicros,
  unpricedRequests: '2',
});

const REPORT: GetUsageResponse = {
  rangeDays: 30,
  groupBy: UsageGroupBy.USAGE_GROUP_BY_MODEL,
  from: new Date('2026-01-02T00:00:00.000Z'),
  to: new Date('2026-01-31T12:34:56.789Z'),
  truncated: false,
  totals: figures('12', '1234567', { p50: 10, p95: 19, p99: 20 }),
  groups: [{ key: 'gpt-4.1', figures: figures('11', '1234567', { p50: 10, p95: 19, p99: 20 }) }, { figures: figures('1', '0') }],
};

describe('usage routes', () => {
  let edge: RunningFakeEdge;
  let bearer: string;
  const usageCalls: GetUsageRequest[] = [];

  beforeAll(async () => {
    bearer = await signAccessToken({ userId: USER_ID, email: 'member@example.com' }, TEST_SECRET, 900);
    const usage = {
      getUsage: async (request: GetUsageRequest) => {
        usageCalls.push(request);
        return REPORT;
      },
      close: () => undefined,
      isConnected: () => true,
    } satisfies PromiseClient<typeof UsageServiceService>;
    edge = await startFakeEdge(
      {
        authenticate: async ({ credential }) => {
          if (credential === API_KEY) return { principal: principal(['inference', 'usage:read']) };
          if (credential === NARROW_KEY) return { principal: principal(['inference']) };
          if (credential === 'legacy-gateway-token') return { principal: principal(['inference'], PrincipalKind.PRINCIPAL_KIND_GATEWAY_TOKEN) };
          throw invalidCredential('unknown_key');
        },
        getUser: async () => ({
          user: { id: USER_ID, email: 'member@example.com', memberships: [{ organizationId: ORG_ID, organizationName: 'Acme', role: Role.ROLE_MEMBER, planTier: 'pro' }] },
        }),
      },
      { usage },
    );
  });
  afterAll(() => edge.stop());

  it('answers a usage:read key with its organization’s report, as JSON', async () => {
    const response = await call(edge.url, '/api/v1/usage?range=30d&group_by=model', { bearer: API_KEY });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(usageCalls.at(-1)).toEqual({ organizationId: ORG_ID, rangeDays: 30, groupBy: UsageGroupBy.USAGE_GROUP_BY_MODEL });
    const latency = { p50: 10, p95: 19, p99: 20 };
    const shared = { errors: 1, failures: { provider: 1 }, unpriced_requests: 2 };
    expect(response.body).toEqual({
      range: '30d',
      group_by: 'model',
      from: '2026-01-02T00:00:00.000Z',
      to: '2026-01-31T12:34:56.789Z',
      truncated: false,
      totals: { requests: 12, latency_ms: latency, cost_usd: '1.234567', ...shared },
      groups: [
        { key: 'gpt-4.1', requests: 11, latency_ms: latency, cost_usd: '1.234567', ...shared },
        { key: null, requests: 1, latency_ms: { p50: null, p95: null, p99: null }, cost_usd: '0.000000', ...shared },
      ],
    });
  });

  it('leaves absent parameters to the usage service’s defaults', async () => {
    await call(edge.url, '/api/v1/usage', { bearer: API_KEY });
    expect(usageCalls.at(-1)).toEqual({ organizationId: ORG_ID, rangeDays: 0, groupBy: UsageGroupBy.USAGE_GROUP_BY_UNSPECIFIED });
    for (const [range, days] of [['7d', 7], ['14d', 14], ['90d', 90]] as const) {
      await call(edge.url, `/api/v1/usage?range=${range}&group_by=agent`, { bearer: API_KEY });
      expect(usageCalls.at(-1)).toEqual({ organizationId: ORG_ID, rangeDays: days, groupBy: UsageGroupBy.USAGE_GROUP_BY_AGENT });
    }
  });

  it('answers the Console route for a member with the same body, from the same call', async () => {
    const byKey = await call(edge.url, '/api/v1/usage?range=30d&group_by=key', { bearer: API_KEY });
    const bySession = await call(edge.url, `/api/v1/orgs/${ORG_ID}/usage?range=30d&group_by=key`, { bearer });
    expect(bySession.status).toBe(200);
    expect(bySession.text).toBe(byKey.text);
    expect(usageCalls.at(-1)).toEqual(usageCalls.at(-2));
    expect(edge.auth.calls.getUser.at(-1)).toEqual({ userId: USER_ID });
    const byCookie = await call(edge.url, `/api/v1/orgs/${ORG_ID}/usage?range=30d&group_by=key`, { cookie: `service-access-token=${bearer}` });
    expect(byCookie.text).toBe(byKey.text);
  });

  it.each([
    ['no credential', undefined],
    ['an unknown key', `svc_test_ffffffff${'0'.repeat(48)}`],
    ['a malformed bearer', 'not a key'],
  ])('refuses %s with the gateway’s 401', async (_case, credential) => {
    const calls = usageCalls.length;
    const response = await call(edge.url, '/api/v1/usage?range=7d', credential === undefined ? {} : { bearer: credential });
    expect(expectError(response, 401, 'auth').message).toBe(INVALID_CREDENTIAL_MESSAGE);
    expect(usageCalls.length).toBe(calls);
  });

  it.each([
    ['a key without usage:read', NARROW_KEY],
    ['a legacy credential (inference only)', 'legacy-gateway-token'],
  ])('refuses %s with 403 permission, before reading the query', async (_case, credential) => {
    const calls = usageCalls.length;
    const response = await call(edge.url, '/api/v1/usage?range=5d', { bearer: credential });
    expect(expectError(response, 403, 'permission').message).toContain('"usage:read"');
    expect(usageCalls.length).toBe(calls);
  });

  it('answers a non-member with 404, as for an organization that does not exist', async () => {
    const calls = usageCalls.length;
    const response = await call(edge.url, `/api/v1/orgs/${OTHER_ORG}/usage`, { bearer });
    expect(expectError(response, 404, 'not_found').message).toBe('Organization not found.');
    expect(usageCalls.length).toBe(calls);
  });

  it('refuses an API key on the Console route and a session on the API route', async () => {
    expectError(await call(edge.url, `/api/v1/orgs/${ORG_ID}/usage`, { bearer: API_KEY }), 401, 'auth');
    expectError(await call(edge.url, '/api/v1/usage', { bearer }), 401, 'auth');
  });

  it.each([
    ['range=5d', 'query parameter "range" must be one of: 7d, 14d, 30d, 90d'],
    ['range=30', 'query parameter "range" must be one of: 7d, 14d, 30d, 90d'],
    ['range=', 'query parameter "range" must be one of: 7d, 14d, 30d, 90d'],
    ['group_by=user', 'query parameter "group_by" must be one of: day, model, key, agent'],
    ['range=7d&range=30d', 'query parameter "range" must be given once, as one of: 7d, 14d, 30d, 90d'],
    ['group_by=day&group_by=day', 'query parameter "group_by" must be given once, as one of: day, model, key, agent'],
    ['range=7d&from=2026-01-01', 'unknown query parameter "from" (allowed: range, group_by)'],
    ['range[]=7d', 'unknown query parameter "range[]" (allowed: range, group_by)'],
  ])('rejects ?%s on both routes, naming the parameter and what it allows', async (query, message) => {
    const calls = usageCalls.length;
    for (const [path, credential] of [
      [`/api/v1/usage?${query}`, API_KEY],
      [`/api/v1/orgs/${ORG_ID}/usage?${query}`, bearer],
    ] as const) {
      const response = await call(edge.url, path, { bearer: credential });
      expect(expectError(response, 400, 'validation').message).toBe(`Invalid request: ${message}.`);
    }
    expect(usageCalls.length).toBe(calls);
  });

  it('passes the usage service’s errors through the one error path', async () => {
    const failing = await startFakeEdge(
      { authenticate: async () => ({ principal: principal(['usage:read']) }) },
      {
        usage: {
          getUsage: () => Promise.reject(new DomainError('unavailable', 'The database lacks migration "0002_usage_reads" of schema "ledger". Run "npm run migrate".')),
          close: () => undefined,
          isConnected: () => true,
        } satisfies PromiseClient<typeof UsageServiceService>,
      },
    );
    try {
      const response = await call(failing.url, '/api/v1/usage', { bearer: API_KEY });
      expect(expectError(response, 503, 'internal').message).toContain('0002_usage_reads');
    } finally {
      await failing.stop();
    }
  });
});
