import { Writable } from 'node:stream';
import { credentials, makeGenericClientConstructor, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { createLogger } from '../logging';
import { monitorHealth, type DependencyCheck, type HealthMonitor } from './health';
import { startGrpcServer, type RunningGrpcServer } from './server';

const SERVICE_NAME = 'gateway.test.v1.TestService';

type CheckCallback = (error: ServiceError | null, response?: { status: string }) => void;
type HealthClient = InstanceType<ReturnType<typeof makeGenericClientConstructor>> & {
  check(request: { service: string }, callback: CheckCallback): void;
};

/** A dependency whose answer the test controls. */
function switchable(name: string) {
  let up = true;
  let hang = false;
  const check: DependencyCheck = {
    name,
    check: () => (hang ? new Promise<void>(() => undefined) : up ? Promise.resolve() : Promise.reject(new Error(`${name} refused`))),
  };
  return {
    check,
    set(state: 'up' | 'down' | 'hanging') {
      up = state === 'up';
      hang = state === 'hanging';
    },
  };
}

describe('monitorHealth over grpc.health.v1', () => {
  const postgres = switchable('postgres');
  const redis = switchable('redis');
  const logLines: string[] = [];
  let monitor: HealthMonitor;
  let server: RunningGrpcServer;
  let client: HealthClient;

  const statusOf = (service: string) =>
    new Promise<string>((resolve, reject) =>
      client.check({ service }, (error, response) => (error ? reject(error) : resolve(response?.status ?? 'missing'))),
    );

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    // A long interval: the test drives every round through refresh().
    monitor = monitorHealth([SERVICE_NAME], [postgres.check, redis.check], createLogger({ service: 'test', destination }), 60_000, 50);
    server = await startGrpcServer({ port: 0, services: [], health: monitor.health });
    const Client = makeGenericClientConstructor(healthService, 'Health');
    client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure()) as HealthClient;
  });

  afterAll(async () => {
    monitor.stop();
    client.close();
    await server.shutdown(1000);
  });

  it('reports NOT_SERVING before the first round of checks', async () => {
    await expect(statusOf('')).resolves.toBe('NOT_SERVING');
    await expect(statusOf(SERVICE_NAME)).resolves.toBe('NOT_SERVING');
    expect(monitor.snapshot()).toEqual({ postgres: false, redis: false });
  });

  it('reports SERVING once every check passes', async () => {
    await expect(monitor.refresh()).resolves.toBe(true);
    await expect(statusOf('')).resolves.toBe('SERVING');
    await expect(statusOf(SERVICE_NAME)).resolves.toBe('SERVING');
    expect(monitor.snapshot()).toEqual({ postgres: true, redis: true });
  });

  it('flips to NOT_SERVING when one check fails, naming the dependency in the log', async () => {
    redis.set('down');
    await expect(monitor.refresh()).resolves.toBe(false);
    await expect(statusOf('')).resolves.toBe('NOT_SERVING');
    await expect(statusOf(SERVICE_NAME)).resolves.toBe('NOT_SERVING');
    expect(monitor.snapshot()).toEqual({ postgres: true, redis: false });
    expect(logLines.map((line) => JSON.parse(line) as { msg: string; dependency?: string })).toContainEqual(
      expect.objectContaining({ msg: 'dependency unavailable', dependency: 'redis' }),
    );
  });

  it('counts a check that never answers as failed', async () => {
    redis.set('up');
    postgres.set('hanging');
    await expect(monitor.refresh()).resolves.toBe(false);
    expect(monitor.snapshot()).toEqual({ postgres: false, redis: true });
    await expect(statusOf('')).resolves.toBe('NOT_SERVING');
  });

  it('returns to SERVING when the dependency recovers', async () => {
    postgres.set('up');
    await expect(monitor.refresh()).resolves.toBe(true);
    await expect(statusOf(SERVICE_NAME)).resolves.toBe('SERVING');
  });

  it('answers NOT_FOUND for a service it does not know', async () => {
    await expect(statusOf('gateway.other.v1.Other')).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
  });
});
