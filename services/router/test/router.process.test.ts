import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG_PATH } from '@gateway/lib/catalog';
import { DomainError } from '@gateway/lib/errors';
import { createPromiseClient, type PromiseClient } from '@gateway/lib/grpc';
import { answerRoute, createRouter, routingPolicyFromMessage } from '@gateway/lib/routing';
import { RouterServiceService, type RouteRequest, type RoutingPolicy } from '@gateway/proto/gen/gateway/router/v1/router';
import { outcomeOf, routeRequestSpread } from '../../lib/test/support/route-requests';
import { healthStatus } from '../../../test/support/health';
import { runToExit, startService, type ServiceProcess } from '../../../test/support/processes';
import { ROUTER_HEALTH_NAME } from '../src/server';

const ENTRY = 'services/router/src/main.ts';


const routeRequest = (overrides: Partial<RouteRequest>): RouteRequest => ({
  requestedModel: 'auto',
  credentialModel: 'auto',
  planTier: 'simulated',
  messages: [{ role: 'user', content: 'hi' }],
  toolCount: 0,
  maxOutputTokens: 0,
  parameters: [],
  ...overrides,
});

describe('router process over gRPC', () => {
  let router: ServiceProcess;
  let client: PromiseClient<typeof RouterServiceService>;

  beforeAll(async () => {
    router = await startService({ name: 'router', entry: ENTRY, env: {} });
    client = createPromiseClient(RouterServiceService, { serviceName: 'router', address: router.address, deadlineMs: 5000 });
  });

  afterAll(async () => {
    client.close();
    await router.stop();
  });

  it('reports SERVING over grpc.health.v1, overall and by service name', async () => {
    await expect(healthStatus(router.address, '')).resolves.toBe('SERVING');
    await expect(healthStatus(router.address, ROUTER_HEALTH_NAME)).resolves.toBe('SERVING');
  });

  it('routes auto to the plan model of the scored tier, explaining the score', async () => {
    const response = await client.route(routeRequest({}));
    expect(response).toMatchObject({ model: 'sim-small', provider: 'simulator', tier: 'simple', complexity: 0, routed: true, reason: 'auto', droppedParams: [] });
    expect(response.signals.map(({ name }) => name)).toEqual(['length', 'turns', 'system_prompt', 'code', 'math', 'reasoning', 'tools', 'output']);
  });

  it('serves a named model, dropping only the parameters it rejects', async () => {
    const response = await client.route(
      routeRequest({
        requestedModel: 'sim-reasoning',
        messages: [{ role: 'user', content: 'Compare the two plans and explain why one is cheaper.' }],
        parameters: ['model', 'messages', 'temperature', 'stream', 'max_tokens'],
      }),
    );
    expect(response).toMatchObject({ model: 'sim-reasoning', routed: false, reason: 'requested', droppedParams: ['max_tokens', 'temperature'] });
    expect(response.complexity).toBe(30);
    expect(response.tier).toBe('standard');
  });

  it("serves a named model above the plan ceiling with the ceiling's model", async () => {
    const response = await client.route(routeRequest({ requestedModel: 'o3', planTier: 'free' }));
    expect(response).toMatchObject({ model: 'gpt-4.1-mini', routed: true, reason: 'plan_ceiling' });
  });

  it('delivers an unknown model as the validation DomainError, intact', async () => {
    const error = await client.route(routeRequest({ requestedModel: 'gpt-9' })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'validation', field: 'model', message: expect.stringMatching(/^Unknown model "gpt-9"\. Use "auto" or one of: .*sim-small/) });
  });

  it('rejects a negative count naming the field', async () => {
    const error = await client.route(routeRequest({ toolCount: -1 })).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'validation', field: 'tool_count', message: 'tool_count: must be 0 or more' });
  });

  it('answers an unknown plan with internal, keeping the detail in its own log', async () => {
    const error = await client.route(routeRequest({ planTier: 'platinum' })).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'internal' });
    expect((error as DomainError).message).not.toContain('platinum');
  });

  it('publishes the policy Route answers with: routing with it locally gives exactly what Route answers', async () => {
    const abort = new AbortController();
    const [first] = await firstVersions(client, abort, 1);
    abort.abort();
    const local = createRouter(routingPolicyFromMessage(first));
    for (const request of routeRequestSpread()) {
      const remote = await outcomeOf(() => client.route(request));
      await expect(outcomeOf(() => answerRoute(local, request))).resolves.toEqual(remote);
    }
  });

  it('names in every answer the version of the policy it publishes', async () => {
    const abort = new AbortController();
    const [first] = await firstVersions(client, abort, 1);
    abort.abort();
    const answer = await client.route(routeRequest({}));
    expect(answer.routingPolicyVersion).toBe(first?.version);
    expect(answer.routingPolicyVersion).toMatch(/^sha256:[0-9a-f]{16}$/);
  });

  it('drains on SIGTERM and exits 0, ending the policy streams open', async () => {
    const spare = await startService({ name: 'router', entry: ENTRY, env: {} });
    const watcher = createPromiseClient(RouterServiceService, { serviceName: 'router', address: spare.address, deadlineMs: 5000 });
    try {
      const versions = watcher.watchRoutingPolicy({})[Symbol.asyncIterator]();
      await versions.next();
      await expect(spare.stop()).resolves.toBe(0);
      await expect(versions.next()).resolves.toMatchObject({ done: true });
    } finally {
      watcher.close();
    }
  });
});

/** The first `count` policies a WatchRoutingPolicy stream sends. */
async function firstVersions(client: PromiseClient<typeof RouterServiceService>, abort: AbortController, count: number): Promise<Array<RoutingPolicy | undefined>> {
  const policies: Array<RoutingPolicy | undefined> = [];
  for await (const { routingPolicy } of client.watchRoutingPolicy({}, { signal: abort.signal })) {
    policies.push(routingPolicy);
    if (policies.length === count) break;
  }
  return policies;
}

describe('router process publishing its routing policy', () => {
  let folder: string;
  let path: string;
  let router: ServiceProcess;
  let client: PromiseClient<typeof RouterServiceService>;
  const shipped = JSON.parse(readFileSync(DEFAULT_CATALOG_PATH, 'utf8')) as { plans: Record<string, { ceiling_tier: string }> };

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'router-catalog-'));
    path = join(folder, 'catalog.json');
    writeFileSync(path, JSON.stringify(shipped));
    router = await startService({ name: 'router', entry: ENTRY, env: { CATALOG_PATH: path } });
    client = createPromiseClient(RouterServiceService, { serviceName: 'router', address: router.address, deadlineMs: 5000 });
  });

  afterAll(async () => {
    client.close();
    await router.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('streams the policy in force, then a new version when the catalog file changes a plan, which Route then answers with', async () => {
    const abort = new AbortController();
    const versions = client.watchRoutingPolicy({}, { signal: abort.signal })[Symbol.asyncIterator]();
    const nextPolicy = async (): Promise<RoutingPolicy | undefined> => {
      const next = await versions.next();
      return next.done ? undefined : next.value.routingPolicy;
    };
    const first = await nextPolicy();
    expect(first?.version).toMatch(/^sha256:[0-9a-f]{16}$/);
    const hard = routeRequest({ planTier: 'pro', requestedModel: 'o3' });
    await expect(client.route(hard)).resolves.toMatchObject({ model: 'o3', reason: 'requested' });

    const pro = shipped.plans.pro;
    if (!pro) throw new Error('the shipped catalog has a pro plan');
    writeFileSync(path, JSON.stringify({ ...shipped, plans: { ...shipped.plans, pro: { ...pro, ceiling_tier: 'standard' } } }));
    const second = await nextPolicy();
    expect(second?.version).not.toBe(first?.version);
    expect(second?.plans.find(({ planTier }) => planTier === 'pro')?.ceilingTier).toBe('standard');
    await expect(client.route(hard)).resolves.toMatchObject({ reason: 'plan_ceiling', tier: 'simple' });
    abort.abort();
    await expect(versions.next()).resolves.toMatchObject({ done: true });
  });
});

describe('router process with a broken catalog', () => {
  let folder: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'router-catalog-'));
  });

  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('exits non-zero naming the bad field', async () => {
    const catalog = JSON.parse(readFileSync(DEFAULT_CATALOG_PATH, 'utf8')) as { models: Array<Record<string, unknown>> };
    const first = catalog.models[0];
    if (!first) throw new Error('the shipped catalog has no models');
    first.output_usd_per_million_tokens = 'ten dollars';
    const path = join(folder, 'catalog.json');
    writeFileSync(path, JSON.stringify(catalog));
    const { code, output } = await runToExit(ENTRY, { CATALOG_PATH: path });
    expect(code).not.toBe(0);
    expect(output).toContain('models.0.output_usd_per_million_tokens');
    expect(output).not.toContain('"listening"');
  });

  it('exits non-zero naming the file when it is not JSON', async () => {
    const path = join(folder, 'truncated.json');
    writeFileSync(path, '{"version": "1", "models": [');
    const { code, output } = await runToExit(ENTRY, { CATALOG_PATH: path });
    expect(code).not.toBe(0);
    expect(output).toContain(`cannot read catalog ${path}`);
  });
});
