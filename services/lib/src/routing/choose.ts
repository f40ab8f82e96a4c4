import type { Catalog, CatalogModel, CatalogPlan } from '../catalog';
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
  model: CatalogModel;
  reason: RouteReason;
}

export interface ModelRequest {
  requestedModel: string;
  /** A bound agent record's model, else `auto` (or empty). */
  credentialModel: string;
}

function tierModel(catalog: Catalog, plan: CatalogPlan, tier: string): CatalogModel {
  const id = plan.tierModels.get(tier);
  const model = id === undefined ? undefined : catalog.models.get(id);
  if (!model) throw missingTierModel(plan.name, tier, catalog.version);
  return model;
}

/** A named model is served as-is within the plan's ceiling; above it, the ceiling's model serves. */
function namedChoice(catalog: Catalog, plan: CatalogPlan, model: CatalogModel): ModelChoice {
  if (catalog.tierRank(model.tier) <= plan.ceilingRank) return { model, reason: 'requested' };
  return { model: tierModel(catalog, plan, plan.ceilingTier), reason: 'plan_ceiling' };
}

/**
 * - `auto` with a bound agent record whose model is in the catalog: that
 *   model, exactly as if the caller had named it.
 * - `auto` otherwise (unbound key, or a record model the catalog no longer
 *   lists): the plan's model for `tier` (already clamped to the ceiling).
 * - a catalog model: itself, or the ceiling's model when it is above the ceiling.
 * - anything else: a validation error listing the catalog's models.
 */
export function chooseModel(catalog: Catalog, plan: CatalogPlan, request: ModelRequest, tier: string, modelIds: readonly string[]): ModelChoice {
  if (request.requestedModel === AUTO_MODEL) {
    const bound = request.credentialModel === AUTO_MODEL ? undefined : catalog.models.get(request.credentialModel);
    if (bound) return namedChoice(catalog, plan, bound);
    return { model: tierModel(catalog, plan, tier), reason: 'auto' };
  }
  const named = catalog.models.get(request.requestedModel);
  if (!named) throw unknownModel(request.requestedModel, modelIds);
  return namedChoice(catalog, plan, named);
}
