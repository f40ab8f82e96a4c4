import type { ServiceDefinition } from '@grpc/grpc-js';
import { AgentServiceService } from '@gateway/proto/gen/gateway/agent/v1/agent';
import { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { LedgerServiceService } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import { UsageServiceService } from '@gateway/proto/gen/gateway/usage/v1/usage';
import { reflectServices } from '../support/grpc-reflection';
import { startE2e, type E2e } from './support/harness';

/**
 * gRPC server reflection on every backend, as grpcurl uses it: each process
 * lists its own service and the health service, and describes every method
 * its contract declares, read through the reflection stream alone.
 */
jest.setTimeout(90_000);

const CONTRACTS = {
  auth: AuthServiceService,
  router: RouterServiceService,
  pricing: PricingServiceService,
  ledger: LedgerServiceService,
  usage: UsageServiceService,
  agent: AgentServiceService,
} as const;

/** `{ 'gateway.auth.v1.AuthService': ['Authenticate', ...] }` from a generated definition's method paths. */
function declared(definition: ServiceDefinition): Record<string, string[]> {
  const paths = Object.values(definition).map(({ path }) => path);
  const service = paths[0]!.slice(1, paths[0]!.lastIndexOf('/'));
  return { [service]: paths.map((path) => path.slice(path.lastIndexOf('/') + 1)) };
}

let e2e: E2e;

beforeAll(async () => {
  e2e = await startE2e('e2e_reflection');
});

afterAll(async () => {
  await e2e?.close();
});

describe('gRPC server reflection', () => {
  for (const [name, definition] of Object.entries(CONTRACTS)) {
    it(`lists ${name}'s methods and its health service`, async () => {
      const reflected = await reflectServices(e2e.stack.services[name as keyof typeof CONTRACTS].address);
      expect(reflected).toEqual({ ...declared(definition as unknown as ServiceDefinition), 'grpc.health.v1.Health': ['Check', 'Watch', 'List'] });
    });
  }
});
