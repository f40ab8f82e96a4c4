import { Writable } from 'node:stream';
import { AuthServiceService, type AuthenticateResponse } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { samplePrincipal } from '../../../../test/support/principals';
import { DomainError } from '../errors';
import { createLogger } from '../logging';
import { createPromiseClient, type PromiseClient } from './client';
import { HealthImplementation } from './health';
import { startGrpcServer, unaryService, type RunningGrpcServer } from './server';

/** One RPC of the auth contract is enough to exercise the whole path over a real socket. */
const definition = { authenticate: AuthServiceService.authenticate };

const principal: AuthenticateResponse = { principal: samplePrincipal('org-1') };

describe('gRPC round trip', () => {
  const logLines: string[] = [];
  const seenDeadlines: Array<Date | number> = [];
  let releaseSlowCalls: () => void = () => undefined;
  const slowCallsReleased = new Promise<void>((resolve) => (releaseSlowCalls = resolve));
  let server: RunningGrpcServer;
  let client: PromiseClient<typeof definition>;

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ service: 'test', destination });
    const implementation = unaryService(
      definition,
      {
        authenticate: async ({ credential }, context) => {
          seenDeadlines.push(context.deadline);
          switch (credential) {
            case 'invalid':
              throw new DomainError('validation', 'credential: must not be empty', { field: 'credential' });
            case 'rate-limited':
              throw new DomainError('rate_limit', 'Too many attempts.', { retryAfterSeconds: 42, internalReason: 'source over limit' });
            case 'crash':
              throw new Error('relation "auth.api_keys" does not exist');
            case 'slow':
              await slowCallsReleased;
              return principal;
            default:
              return principal;
          }
        },
      },
      logger,
    );
    server = await startGrpcServer({ port: 0, services: [{ definition, implementation }], health: new HealthImplementation() });
    client = createPromiseClient(definition, { serviceName: 'auth', address: `127.0.0.1:${server.port}`, deadlineMs: 5000 });
  });

  afterAll(async () => {
    releaseSlowCalls();
    client.close();
    await server.shutdown(1000);
  });

  it('binds a real port when asked for port 0', () => {
    expect(server.port).toBeGreaterThan(0);
  });

  it('returns the response and sends the client deadline to the server', async () => {
    await expect(client.authenticate({ credential: 'ok', agentId: '' })).resolves.toEqual(principal);
    const deadline = seenDeadlines.at(-1);
    expect(deadline).toBeDefined();
    expect(Number.isFinite(typeof deadline === 'number' ? deadline : deadline?.getTime())).toBe(true);
  });

  it('delivers a thrown DomainError as the same DomainError', async () => {
    const error = await client.authenticate({ credential: 'invalid', agentId: '' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'validation', message: 'credential: must not be empty', field: 'credential' });
  });

  it('carries retry-after but not the internal reason', async () => {
    const error = await client.authenticate({ credential: 'rate-limited', agentId: '' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'rate_limit', message: 'Too many attempts.', retryAfterSeconds: 42, internalReason: undefined });
  });

  it('delivers a plain Error as internal with a generic message, logged on the server', async () => {
    const error = await client.authenticate({ credential: 'crash', agentId: '' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'internal', message: 'Internal error. Report it with the request id.' });
    expect((error as DomainError).message).not.toContain('api_keys');
    const logged = logLines.map((line) => JSON.parse(line) as { msg: string; rpc?: string; err?: { message?: string } });
    expect(logged).toContainEqual(
      expect.objectContaining({
        msg: 'rpc failed',
        rpc: '/gateway.auth.v1.AuthService/Authenticate',
        err: expect.objectContaining({ message: 'relation "auth.api_keys" does not exist' }),
      }),
    );
  });

  it('turns a handler slower than the deadline into timeout naming the service', async () => {
    const error = await client.authenticate({ credential: 'slow', agentId: '' }, { deadlineMs: 100 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'timeout', message: 'The auth service did not answer in time.' });
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
