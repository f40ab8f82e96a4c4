import { credentials, makeGenericClientConstructor } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';

type HealthClient = InstanceType<ReturnType<typeof makeGenericClientConstructor>> & {
  check(request: { service: string }, callback: (error: Error | null, response?: { status: string }) => void): void;
};

/** What a service's `grpc.health.v1` reports for `service` ('' is the whole server). */
export function healthStatus(address: string, service: string): Promise<string> {
  const Client = makeGenericClientConstructor(healthService, 'Health');
  const client = new Client(address, credentials.createInsecure()) as HealthClient;
  return new Promise<string>((resolve, reject) =>
    client.check({ service }, (error, response) => (error ? reject(error) : resolve(response?.status ?? 'missing'))),
  ).finally(() => client.close());
}
