import type { Kysely } from 'kysely';
import { pingDatabase } from '@gateway/lib/db';
import type { ReadinessProbe } from '@gateway/lib/grpc';
import type { Health } from '@gateway/proto/gen/gateway/agent/v1/agent';
import type { GatewayClient } from '../chat/gateway';
import type { AgentDatabase } from '../db/schema';

/** One dependency of the agent, asked when a status includes `health`; never rejects. */
export interface HealthProbe {
  name: string;
  isHealthy(): Promise<boolean>;
  /** How the dependency words its state: [healthy, unhealthy]. */
  states: readonly [string, string];
}

/** A gRPC service's grpc.health.v1 (auth, ledger, router, pricing). */
export function grpcDependency(probe: ReadinessProbe): HealthProbe {
  return { name: probe.name, isHealthy: () => probe.isServing(), states: ['serving', 'not_serving'] };
}

/** The gateway (edge's /readyz): the agent's chats go through it. */
export function gatewayDependency(gateway: GatewayClient): HealthProbe {
  return { name: 'gateway', isHealthy: () => gateway.isReady(), states: ['ready', 'not_ready'] };
}

export function databaseDependency(db: Kysely<AgentDatabase>): HealthProbe {
  return {
    name: 'database',
    isHealthy: () => pingDatabase(db).then(() => true, () => false),
    states: ['up', 'down'],
  };
}

/** Asks every dependency now, side by side. */
export async function checkHealth(probes: readonly HealthProbe[]): Promise<Health> {
  const dependencies = await Promise.all(
    probes.map(async ({ name, isHealthy, states }) => {
      const healthy = await isHealthy();
      return { name, healthy, state: healthy ? states[0] : states[1] };
    }),
  );
  return { status: dependencies.every(({ healthy }) => healthy) ? 'ok' : 'degraded', dependencies };
}
