import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ServiceDefinition } from '@grpc/grpc-js';
import type { CatalogFile } from '@gateway/lib/catalog';
import { grpcServiceName } from '@gateway/lib/grpc';
import { AgentServiceService } from '@gateway/proto/gen/gateway/agent/v1/agent';
import { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { LedgerServiceService } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import { UsageServiceService } from '@gateway/proto/gen/gateway/usage/v1/usage';
import { packProto } from '../../proto/package';
import { reflectServices } from '../support/grpc-reflection';
import { REPO_ROOT } from '../support/paths';
import { TEST_CATALOG_PATH } from './support/catalog';
import { startE2e, type E2e } from './support/harness';

/**
 * What a team outside the gateway has to call its gRPC services with:
 * server reflection on every backend, as grpcurl uses it (each process lists
 * its own service and the health service, and describes every method its
 * contract declares), and the generated clients as a package installed in a
 * project of its own, outside this repository.
 */
jest.setTimeout(240_000);

const run = promisify(execFile);

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
  return { [grpcServiceName(definition)]: Object.values(definition).map(({ path }) => path.slice(path.lastIndexOf('/') + 1)) };
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

describe('the generated clients, packed and installed outside the repository', () => {
  let project: string;

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'gateway-proto-consumer-'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', packProto()], { cwd: project });
  });

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('calls pricing from plain JavaScript with the package and its own @grpc/grpc-js', async () => {
    writeFileSync(
      join(project, 'list-models.js'),
      `const { credentials } = require('@grpc/grpc-js');
const { PricingServiceClient } = require('@gateway/proto/gen/gateway/pricing/v1/pricing');
const client = new PricingServiceClient(process.argv[2], credentials.createInsecure());
client.listModels({}, { deadline: Date.now() + 10000 }, (error, response) => {
  if (error) { console.error(error.message); process.exit(1); }
  console.log(JSON.stringify(response.models.map((model) => model.id)));
  client.close();
});
`,
    );
    const { stdout } = await run(process.execPath, ['list-models.js', e2e.stack.services.pricing.address], { cwd: project });
    const catalog = JSON.parse(readFileSync(TEST_CATALOG_PATH, 'utf8')) as CatalogFile;
    expect((JSON.parse(stdout) as string[]).sort()).toEqual(catalog.models.map(({ id }) => id).sort());
  });

  it('type-checks a TypeScript caller against the declarations it ships', async () => {
    writeFileSync(
      join(project, 'route.ts'),
      `import { RouterServiceClient, type RouteResponse } from '@gateway/proto/gen/gateway/router/v1/router';
import { credentials } from '@grpc/grpc-js';
const client = new RouterServiceClient('dns:///router:50052', credentials.createInsecure());
export const model = (response: RouteResponse): string => response.model;
export { client };
`,
    );
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await expect(
      run(process.execPath, [tsc, '--noEmit', '--strict', '--skipLibCheck', '--module', 'node16', '--moduleResolution', 'node16', 'route.ts'], { cwd: project }),
    ).resolves.toBeDefined();
  });
});
