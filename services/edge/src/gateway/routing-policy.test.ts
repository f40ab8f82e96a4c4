import { loadCatalog, type Catalog } from '@gateway/lib/catalog';
import { DomainError } from '@gateway/lib/errors';
import { createInProcessClient, type ServiceHandlers } from '@gateway/lib/grpc';
import { createLogger } from '@gateway/lib/logging';
import { answerRoute, createRouter, routingPolicy, routingPolicyFromCatalog, routingPolicyMessage, type RoutingPolicy } from '@gateway/lib/routing';
import { RouterServiceService, type RouteRequest, type WatchRoutingPolicyResponse } from '@gateway/proto/gen/gateway/router/v1/router';
import { holdRoutingPolicy, routeCall, routingReadiness } from './routing-policy';

const logger = createLogger({ service: 'test', level: 'silent' });
const catalog: Catalog = loadCatalog();
const shipped = routingPolicyFromCatalog(catalog);
const policyOf = (policy: RoutingPolicy): WatchRoutingPolicyResponse => ({ routingPolicy: routingPolicyMessage(policy) });
const fast = { initialBackoffMs: 1, maxBackoffMs: 2 };

const request = (overrides: Partial<RouteRequest>): RouteRequest => ({
  requestedModel: 'auto',
  credentialModel: 'auto',
  planTier: 'pro',
  messages: [{ role: 'user', content: 'Explain step by step why the proof fails.' }],
  toolCount: 0,
  maxOutputTokens: 0,
  parameters: ['model', 'messages', 'temperature'],
  ...overrides,
});

/** The router as edge's client sees it: Route answers with the shipped policy and is counted; the stream follows `plan`. */
function routerWith(plan: (attempt: number) => AsyncIterable<WatchRoutingPolicyResponse>) {
  const calls = { route: 0, watch: 0 };
  const authority = createRouter(shipped);
  const handlers: ServiceHandlers<typeof RouterServiceService> = {
    route: async (routeRequest) => {
      calls.route += 1;
      return answerRoute(authority, routeRequest);
    },
    watchRoutingPolicy: () => plan((calls.watch += 1)),
  };
  return { client: createInProcessClient(RouterServiceService, handlers, { serviceName: 'router', deadlineMs: 1000, logger }), calls };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
};

async function failure(answer: Promise<unknown>): Promise<DomainError> {
  const error = await answer.catch((caught: unknown) => caught);
  if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
  return error;
}

describe('routing with the policy edge holds', () => {
  it('asks Route until a policy arrives, then routes locally with the same answers and the same errors', async () => {
    let publish: () => void = () => undefined;
    const published = new Promise<void>((resolve) => (publish = resolve));
    const router = routerWith(async function* () {
      await published;
      yield policyOf(shipped);
      await new Promise(() => undefined);
    });
    const routingPolicy = holdRoutingPolicy(router.client, logger, fast);
    const backends = { router: router.client, routingPolicy };
    const requests = [
      request({}),
      request({ requestedModel: 'o3', planTier: 'free', parameters: ['temperature', 'max_tokens'] }),
      request({ credentialModel: 'claude-opus-4-1', planTier: 'starter' }),
    ];
    const refused = [request({ requestedModel: 'gpt-9' }), request({ planTier: 'platinum' }), request({ toolCount: -1 })];
    try {
      const remote = await Promise.all(requests.map((each) => routeCall(backends, each)));
      const remoteErrors = await Promise.all(refused.map((each) => failure(routeCall(backends, each))));
      expect(router.calls.route).toBe(requests.length + refused.length);

      publish();
      await until(() => routingPolicy.current() !== undefined);
      expect(routingPolicy.current()?.policy.version).toBe(shipped.version);
      await expect(Promise.all(requests.map((each) => routeCall(backends, each)))).resolves.toEqual(remote);
      const localErrors = await Promise.all(refused.map((each) => failure(routeCall(backends, each))));
      expect(localErrors.map(({ kind, message, field, httpStatus }) => ({ kind, message, field, httpStatus }))).toEqual(
        remoteErrors.map(({ kind, message, field, httpStatus }) => ({ kind, message, field, httpStatus })),
      );
      expect(router.calls.route).toBe(requests.length + refused.length);
    } finally {
      routingPolicy.stop();
    }
  });

  it('keeps routing with the policy held while the router is away, and takes a new version when it is back', async () => {
    const lowered = routingPolicy({ ...shipped, plans: new Map([...shipped.plans].map(([name, plan]) => [name, { ...plan, ceilingTier: 'simple' }])) });
    const router = routerWith(async function* (attempt) {
      if (attempt === 1) yield policyOf(shipped);
      else if (attempt < 4) throw new DomainError('unavailable', 'The router service is unavailable.');
      else yield policyOf(lowered);
    });
    const routingPolicyHeld = holdRoutingPolicy(router.client, logger, fast);
    const backends = { router: router.client, routingPolicy: routingPolicyHeld };
    try {
      await until(() => router.calls.watch >= 3);
      await expect(routeCall(backends, request({ requestedModel: 'o3' }))).resolves.toMatchObject({ model: 'o3', reason: 'requested' });
      await until(() => routingPolicyHeld.current()?.policy.version === lowered.version);
      await expect(routeCall(backends, request({ requestedModel: 'o3' }))).resolves.toMatchObject({ tier: 'simple', reason: 'plan_ceiling' });
      expect(router.calls.route).toBe(0);
    } finally {
      routingPolicyHeld.stop();
    }
  });

  it('refuses a policy it cannot route with (forged version, other tiers), and asks Route meanwhile', async () => {
    const forged = policyOf(shipped);
    if (forged.routingPolicy) forged.routingPolicy.catalogVersion = 'forged';
    const renamed = routingPolicy({ ...shipped, tiers: ['basic', 'standard', 'complex', 'reasoning'], plans: new Map() });
    const router = routerWith(async function* (attempt) {
      yield attempt % 2 === 1 ? forged : policyOf(renamed);
    });
    const routingPolicyHeld = holdRoutingPolicy(router.client, logger, fast);
    try {
      await until(() => router.calls.watch >= 4);
      expect(routingPolicyHeld.current()).toBeUndefined();
      await expect(routeCall({ router: router.client, routingPolicy: routingPolicyHeld }, request({}))).resolves.toMatchObject({ model: expect.any(String) });
      expect(router.calls.route).toBe(1);
    } finally {
      routingPolicyHeld.stop();
    }
  });

  it('is ready with a policy held even when the router does not serve', async () => {
    const router = routerWith(async function* () {
      yield policyOf(shipped);
      await new Promise(() => undefined);
    });
    const down = { name: 'router', isServing: async () => false };
    const routingPolicyHeld = holdRoutingPolicy(router.client, logger, fast);
    const readiness = routingReadiness(down, routingPolicyHeld);
    try {
      await until(() => routingPolicyHeld.current() !== undefined);
      await expect(readiness.isServing()).resolves.toBe(true);
      routingPolicyHeld.stop();
      await expect(routingReadiness(down, { current: () => undefined, stop: () => undefined }).isServing()).resolves.toBe(false);
    } finally {
      routingPolicyHeld.stop();
    }
  });
});
