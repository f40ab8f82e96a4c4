import type { RoutingPolicy as RoutingPolicyMessage } from '@gateway/proto/gen/gateway/router/v1/router';
import { z } from 'zod';
import { DomainError } from '../errors';
import { parseInput } from '../validation';
import { routingPolicy, type RoutingPolicy } from './policy';

/** The routing policy as the router publishes it (`WatchRoutingPolicy`). */
export function routingPolicyMessage(policy: RoutingPolicy): RoutingPolicyMessage {
  return {
    version: policy.version,
    catalogVersion: policy.catalogVersion,
    tiers: [...policy.tiers],
    models: [...policy.models.values()].map((model) => ({
      id: model.id,
      provider: model.provider,
      tier: model.tier,
      unsupportedParams: [...model.unsupportedParams].sort(),
    })),
    plans: [...policy.plans.values()].map((plan) => ({
      planTier: plan.name,
      ceilingTier: plan.ceilingTier,
      tierModels: Object.fromEntries(plan.tierModels),
    })),
  };
}

const name = z.string().min(1, 'is required');

const routingPolicySchema = z
  .object({
    version: name,
    catalogVersion: z.string(),
    tiers: z.array(name).min(1),
    models: z.array(z.object({ id: name, provider: name, tier: name, unsupportedParams: z.array(z.string()) })),
    plans: z.array(z.object({ planTier: name, ceilingTier: name, tierModels: z.record(z.string(), z.string()) })),
  })
  .superRefine((policy, context) => {
    for (const [index, plan] of policy.plans.entries()) {
      if (!policy.tiers.includes(plan.ceilingTier)) context.addIssue({ code: 'custom', path: ['plans', index, 'ceilingTier'], message: 'is not one of the tiers' });
    }
  });

/**
 * A received routing policy, checked: its content must hash to the version it
 * claims, so what a caller routes with is exactly the policy of that version.
 */
export function routingPolicyFromMessage(message: RoutingPolicyMessage | undefined): RoutingPolicy {
  const received = parseInput(routingPolicySchema, message ?? {});
  const policy = routingPolicy({
    catalogVersion: received.catalogVersion,
    tiers: received.tiers,
    models: new Map(received.models.map(({ id, provider, tier, unsupportedParams }) => [id, { id, provider, tier, unsupportedParams: new Set(unsupportedParams) }])),
    plans: new Map(
      received.plans.map(({ planTier, ceilingTier, tierModels }) => [planTier, { name: planTier, ceilingTier, tierModels: new Map(Object.entries(tierModels)) }]),
    ),
  });
  if (policy.version !== received.version) {
    throw new DomainError('internal', 'The routing policy received does not match its version.', {
      internalReason: `routing policy claims ${received.version}, its content hashes to ${policy.version}`,
    });
  }
  return policy;
}
