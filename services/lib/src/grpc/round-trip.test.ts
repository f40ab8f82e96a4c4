import { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { samplePrincipal } from '../../../../test/support/principals';
import { DomainError } from '../errors';
import { createLogger } from '../logging';
import { createPromiseClient } from './client';
import { HealthImplementation } from './health';
import { startGrpcServer, unaryService } from './server';

/** What only the socket transport has: a bound port, and a server that is not there. The rest is transport-contract.test.ts. */
const definition = { authenticate: AuthServiceService.authenticate };

describe('gRPC round trip', () => {
  it('binds a real port when asked for port 0, and answers on it', async () => {
    const implementation = unaryService(definition, { authenticate: async () => ({ principal: samplePrincipal('org-1') }) }, createLogger({ service: 'test', level: 'silent' }));
    const server = await startGrpcServer({ port: 0, services: [{ definition, implementation }], health: new HealthImplementation() });
    const client = createPromiseClient(definition, { serviceName: 'auth', address: `127.0.0.1:${server.port}`, deadlineMs: 5000 });
    try {
      expect(server.port).toBeGreaterThan(0);
      await expect(client.authenticate({ credential: 'ok', agentId: '' })).resolves.toMatchObject({ principal: { organizationId: 'org-1' } });
    } finally {
      client.close();
      await server.shutdown(1000);
    }
  });

  it('turns a stopped server into unavailable naming the service', async () => {
    const stopped = await startGrpcServer({ port: 0, services: [], health: new HealthImplementation() });
    await stopped.shutdown(1000);
    const orphan = createPromiseClient(definition, { serviceName: 'auth', address: `127.0.0.1:${stopped.port}`, deadlineMs: 5000 });
    try {
      const error = await orphan.authenticate({ credential: 'ok', agentId: '' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ kind: 'unavailable', message: 'The auth service is unavailable.' });
    } finally {
      orphan.close();
    }
  });
});
