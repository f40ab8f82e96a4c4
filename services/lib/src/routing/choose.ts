import type { RoutedModel, RoutingPlan, RoutingPolicy } from './policy';
import { missingTierModel, unknownModel } from './errors';

/** The model name that asks the router to choose. */
export const AUTO_MODEL = 'auto';

/**
 * Why the served model was chosen: the caller (or the bound agent record)
 * named it; `auto` picked it for the scored tier; or the named model is above
 * the plan's ceiling and the ceiling's model serves instead.
 */
export type RouteReason = 'requested' | 'auto' | 'plan_ceiling';

export interface ModelChoice {
  model: RoutedModel;
  reason: RouteReason;
}

export interface ModelRequest {
  requestedModel: string;
  /** A bound agent record's model, else `auto` (or empty). */
  credentialModel: string;
}

function tierModel(policy: RoutingPolicy, plan: RoutingPlan, tier: string): RoutedModel {
  const id = plan.tierModels.get(tier);
  const model = id === undefined ? undefined : policy.models.get(id);
  if (!model) throw missingTierModel(plan.name, tier, policy.catalogVersion);
  return model;
}

/** A named model is served as-is within the plan's ceiling; above it, the ceiling's model serves. */
function namedChoice(policy: RoutingPolicy, plan: RoutingPlan, model: RoutedModel): ModelChoice {
  if (policy.tierRank(model.tier) <= plan.ceilingRank) return { model, reason: 'requested' };
  return { model: tierModel(policy, plan, plan.ceilingTier), reason: 'plan_ceiling' };
}

/**
 * - `auto` with a bound agent record whose model is in the catalog: that
 *   model, exactly as if the caller had named it.
 * - `auto` otherwise (unbound key, or a record model the catalog no longer
 *   lists): the plan's model for `tier` (already clamped to the ceiling).
 * - a catalog model: itself, or the ceiling's model when it is above the ceiling.
 * - anything else: a validation error listing the catalog's models.
 */
export function chooseModel(policy: RoutingPolicy, plan: RoutingPlan, request: ModelRequest, tier: string, modelIds: readonly string[]): ModelChoice {
  if (request.requestedModel === AUTO_MODEL) {
    const bound = request.credentialModel === AUTO_MODEL ? undefined : policy.models.get(request.credentialModel);
    if (bound) return namedChoice(policy, plan, bound);
    return { model: tierModel(policy, plan, tier), reason: 'auto' };
  }
  const named = policy.models.get(request.requestedModel);
  if (!named) throw unknownModel(request.requestedModel, modelIds);
  return namedChoice(policy, plan, named);
}
