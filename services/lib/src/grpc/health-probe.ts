import { Client, credentials } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { RECONNECT_CHANNEL_OPTIONS } from './client';

/** A backend someone asks whether it serves (edge's /readyz, the agent's status); resolves false, never rejects, when it does not. */
export interface ReadinessProbe {
  name: string;
  isServing(): Promise<boolean>;
}

export interface GrpcHealthProbe extends ReadinessProbe {
  close(): void;
}

interface HealthCheckResponse {
  status?: string;
}

const checkMethod = healthService.Check;
if (!checkMethod) throw new Error('grpc-health-check no longer defines grpc.health.v1.Health/Check');
const check: NonNullable<typeof checkMethod> = checkMethod;

/**
 * Asks a gRPC server's `grpc.health.v1.Health/Check` about its overall
 * status (service name ""), which the backends hold at SERVING only while
 * every one of their own dependencies answers.
 */
export function grpcHealthProbe(name: string, address: string, deadlineMs: number): GrpcHealthProbe {
  const client = new Client(address, credentials.createInsecure(), RECONNECT_CHANNEL_OPTIONS);
  return {
    name,
    isServing: () =>
      new Promise((resolve) => {
        client.makeUnaryRequest<{ service: string }, HealthCheckResponse>(
          check.path,
          (request) => check.requestSerialize(request),
          (bytes) => check.responseDeserialize(bytes) as HealthCheckResponse,
          { service: '' },
          { deadline: Date.now() + deadlineMs },
          (error, response) => resolve(!error && response?.status === 'SERVING'),
        );
      }),
    close: () => client.close(),
  };
}

/** A dependency check (for a service's own health) that passes while the probed service reports SERVING. */
export function servingCheck(probe: ReadinessProbe): { name: string; check: () => Promise<void> } {
  return {
    name: probe.name,
    check: async () => {
      if (!(await probe.isServing())) throw new Error(`${probe.name} is not serving`);
    },
  };
}
