import { credentials, makeGenericClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { capturedLogger } from '../../test/support/captured-logger';
import { beginDraining, isDraining } from '../lifecycle';
import { monitorHealth } from './health';
import { startGrpcServer } from './server';

/**
 * Once the process begins to drain (SIGTERM), every health name of every
 * monitor says NOT_SERVING and stays so, whatever its dependencies answer:
 * probes and balancers stop sending while the calls in flight finish. (Its
 * own file: draining is for the whole process, and cannot be undone.)
 */
const SERVICE_NAME = 'gateway.test.v1.TestService';

type HealthClient = InstanceType<ReturnType<typeof makeGenericClientConstructor>> & {
  check(request: { service: string }, callback: (error: ServiceError | null, response?: { status: string }) => void): void;
};

it('reports NOT_SERVING for every name from the start of the drain on, healthy dependencies or not', async () => {
  const monitor = monitorHealth([SERVICE_NAME], [{ name: 'postgres', check: () => Promise.resolve() }], capturedLogger().logger, 60_000, 50);
  const server = await startGrpcServer({ port: 0, services: [], health: monitor.health });
  const Client = makeGenericClientConstructor(healthService, 'Health');
  const client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure()) as HealthClient;
  const statusOf = (service: string) =>
    new Promise<string>((resolve, reject) => client.check({ service }, (error, response) => (error ? reject(error) : resolve(response?.status ?? 'missing'))));
  try {
    await expect(monitor.refresh()).resolves.toBe(true);
    await expect(statusOf('')).resolves.toBe('SERVING');

    expect(isDraining()).toBe(false);
    beginDraining();
    expect(isDraining()).toBe(true);
    await expect(statusOf('')).resolves.toBe('NOT_SERVING');
    await expect(statusOf(SERVICE_NAME)).resolves.toBe('NOT_SERVING');
    // A round of checks that all pass changes nothing now.
    await expect(monitor.refresh()).resolves.toBe(false);
    await expect(statusOf(SERVICE_NAME)).resolves.toBe('NOT_SERVING');
    // A monitor made during the drain starts and stays NOT_SERVING.
    const late = monitorHealth([SERVICE_NAME], [], capturedLogger().logger, 60_000, 50);
    await expect(late.refresh()).resolves.toBe(false);
    late.stop();
  } finally {
    monitor.stop();
    client.close();
    await server.shutdown(1000);
  }
});
