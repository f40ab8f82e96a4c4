import { CatalogError } from '../catalog';
import { SCORED_TIERS, scoreRequest, type ScoreSignal, type ScoringInput } from './scoring';
import { chooseModel, type ModelRequest, type RouteReason } from './choose';
import { droppedParams } from './dropped-params';
import { unknownPlan } from './errors';
import type { RoutedModel, RoutingPolicy } from './policy';

export interface RouteInput extends ScoringInput, ModelRequest {
  planTier: string;
  /** Top-level body fields present in the request. */
  parameters: readonly string[];
}

export interface RouteDecision {
  model: RoutedModel;
  /** The tier the request was scored into, clamped to the plan's ceiling (`x-service-tier`). */
  tier: string;
  /** The unclamped score, 0 to 100 (`x-service-complexity`). */
  complexity: number;
  /** The served model is not the requested string (always true for `auto`). */
  routed: boolean;
  droppedParams: string[];
  signals: ScoreSignal[];
  reason: RouteReason;
}

export interface Router {
  /** The policy it routes with. */
  policy: RoutingPolicy;
  route(input: RouteInput): RouteDecision;
}

/** The router scores into fixed tiers; a catalog with other tiers cannot be routed. */
function assertScoredTiers(policy: RoutingPolicy): void {
  const same = policy.tiers.length === SCORED_TIERS.length && policy.tiers.every((tier, index) => tier === SCORED_TIERS[index]);
  if (!same) {
    throw new CatalogError(
      `catalog tiers: must be ${SCORED_TIERS.join(', ')} in this order (the tiers the router scores into); got ${policy.tiers.join(', ')}`,
    );
  }
}

/**
 * Binds the routing rules to one policy (the router's, from its catalog, or
 * the one edge holds); fails when the policy cannot be routed.
 */
export function createRouter(policy: RoutingPolicy): Router {
  assertScoredTiers(policy);
  const modelIds = [...policy.models.keys()];
  return {
    policy,
    route(input) {
      const plan = policy.plans.get(input.planTier);
      if (!plan) throw unknownPlan(input.planTier, policy.catalogVersion);
      const score = scoreRequest(input);
      const tier = policy.tiers[Math.min(policy.tierRank(score.tier), plan.ceilingRank)] ?? plan.ceilingTier;
      const { model, reason } = chooseModel(policy, plan, input, tier, modelIds);
      return {
        model,
        tier,
        complexity: score.complexity,
        routed: model.id !== input.requestedModel,
        droppedParams: droppedParams(input.parameters, model),
        signals: score.signals,
        reason,
      };
    },
  };
}
