import type { Express } from 'express';
import { loadConfig } from '@gateway/lib/config';
import type { CallSettings, PromiseClient, RpcServiceDefinition } from '@gateway/lib/grpc';
import {
  ApiKeyStatus,
  Role,
  type ApiKey,
  type AuthServiceService,
  type Session,
} from '@gateway/proto/gen/gateway/auth/v1/auth';
import { AgentServiceService } from '@gateway/proto/gen/gateway/agent/v1/agent';
import { LedgerServiceService } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import { UsageServiceService } from '@gateway/proto/gen/gateway/usage/v1/usage';
import { capturedLogger } from '../../../lib/test/support/captured-logger';
import { keepAliveConfigShape, type EdgeSettings } from '../../src/config';
import type { GatewayBackends } from '../../src/gateway/deps';
import type { ReadinessProbe } from '../../src/health/grpc-health';
import { createEdgeApp } from '../../src/server';

export type AuthClient = PromiseClient<typeof AuthServiceService>;
type AuthMethods = Omit<AuthClient, 'close' | 'isConnected'>;

/** Records each request it receives, per method, for assertions. */
export interface FakeAuth {
  client: AuthClient;
  calls: { [K in keyof AuthMethods]: Array<Parameters<AuthMethods[K]>[0]> };
}

/**
 * An in-memory stand-in for the auth gRPC client: each method answers with
 * the given implementation, or fails loudly when a test did not expect it.
 */
export function fakeAuth(implementations: Partial<AuthMethods>): FakeAuth {
  const calls = {
    authenticate: [],
    createApiKey: [],
    updateApiKey: [],
    listApiKeys: [],
    revokeApiKey: [],
    login: [],
    refreshSession: [],
    logout: [],
    getUser: [],
    getUserAgent: [],
    updateAgentSettings: [],
    listOrganizationAgents: [],
  } as FakeAuth['calls'];
  const methods = {} as Record<string, (request: unknown, settings?: CallSettings) => Promise<unknown>>;
  for (const name of Object.keys(calls) as Array<keyof AuthMethods>) {
    methods[name] = async (request: unknown, settings?: CallSettings) => {
      (calls[name] as unknown[]).push(request);
      const implementation = implementations[name] as ((request: unknown, settings?: CallSettings) => Promise<unknown>) | undefined;
      if (!implementation) throw new Error(`unexpected call to auth.${name}`);
      return implementation(request, settings);
    };
  }
  return { client: { ...(methods as unknown as AuthMethods), isConnected: () => true, close: () => undefined }, calls };
}

export const TEST_SECRET = 'edge-unit-test-access-token-secret-0123456789';

export const USER_ID = '7d8e2a52-2c4f-4d55-9a0f-6a4a0f5b7c11';
export const ORG_ID = '1f0b4c3e-8d2a-4e6b-9c1d-2a3b4c5d6e7f';
export const AGENT_ID = 'c3a1b2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

export function sampleKey(overrides: Partial<ApiKey> = {}): ApiKey {
  return {
    id: '9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d',
    organizationId: ORG_ID,
    name: 'ci',
    prefix: 'svc_test_0a1b2c3d',
    scopes: ['inference', 'usage:read'],
    agentId: '',
    expiresAt: undefined,
    lastUsedAt: undefined,
    createdAt: new Date('2026-01-02T03:04:05.000Z'),
    revokedAt: undefined,
    status: ApiKeyStatus.API_KEY_STATUS_ACTIVE,
    createdByUserId: USER_ID,
    ...overrides,
  };
}

export function sampleSession(accessToken: string): Session {
  return {
    accessToken,
    expiresInSeconds: 900,
    refreshToken: `rt_${'ab'.repeat(32)}`,
    refreshExpiresInSeconds: 30 * 86_400,
    user: {
      id: USER_ID,
      email: 'owner@example.com',
      memberships: [{ organizationId: ORG_ID, organizationName: 'Acme', role: Role.ROLE_OWNER, planTier: 'pro' }],
    },
  };
}

/** A client whose every call fails loudly: for suites that must not reach that backend. */
function unexpectedClient<D extends RpcServiceDefinition>(serviceName: string, definition: D): PromiseClient<D> {
  const methods: Record<string, unknown> = { isConnected: () => true, close: () => undefined };
  for (const name of Object.keys(definition)) {
    methods[name] = () => Promise.reject(new Error(`unexpected call to ${serviceName}.${name}`));
  }
  return methods as PromiseClient<D>;
}

/** The gateway's backends, none of which the identity and Console suites may call. */
export function unusedGateway(): GatewayBackends {
  const unexpected = () => Promise.reject(new Error('unexpected call to the provider'));
  return {
    router: unexpectedClient('router', RouterServiceService),
    pricing: unexpectedClient('pricing', PricingServiceService),
    ledger: unexpectedClient('ledger', LedgerServiceService),
    provider: {
      complete: unexpected,
      stream: unexpected,
      useProviders: () => {
        throw new Error('unexpected change of providers');
      },
      close: () => Promise.resolve(),
    },
    settings: {
      catalog: { current: () => ({ models: new Map(), planMeters: new Map(), managedProviderKeys: new Map() }) },
      secretsKey: Buffer.alloc(32),
      recordTiming: { commitWithinMs: 100, answerGraceMs: 100 },
    },
  };
}

export interface RunningFakeEdge {
  url: string;
  /** The express app, for suites that read its route table. */
  app: Express;
  auth: FakeAuth;
  logs: ReturnType<typeof capturedLogger>;
  stop(): Promise<void>;
}

/** The real edge app on a free port, in front of a fake auth client (and usage or ledger clients, when a suite needs one). */
export async function startFakeEdge(
  implementations: Partial<AuthMethods>,
  options: {
    settings?: Partial<EdgeSettings>;
    readiness?: ReadinessProbe[];
    usage?: PromiseClient<typeof UsageServiceService>;
    ledger?: PromiseClient<typeof LedgerServiceService>;
  } = {},
): Promise<RunningFakeEdge> {
  const auth = fakeAuth(implementations);
  const logs = capturedLogger({ service: 'edge', level: 'info' });
  const edge = createEdgeApp({
    auth: auth.client,
    readiness: options.readiness ?? [],
    settings: { accessTokenSecret: TEST_SECRET, cookieSecure: false, bodyLimitBytes: 1024, trustProxy: false, ...options.settings },
    logger: logs.logger,
    gateway: { ...unusedGateway(), ...(options.ledger ? { ledger: options.ledger } : {}) },
    agent: unexpectedClient('agent', AgentServiceService),
    usage: options.usage ?? unexpectedClient('usage', UsageServiceService),
  });
  const port = await edge.start({ host: '127.0.0.1', port: 0, keepAliveTimeoutMs: loadConfig(keepAliveConfigShape, {}).HTTP_KEEP_ALIVE_TIMEOUT_MS });
  return { url: `http://127.0.0.1:${port}`, app: edge.app, auth, logs, stop: () => edge.stop() };
}
