import { CatalogError, type Catalog, type CatalogModel } from '../catalog';
import { SCORED_TIERS, scoreRequest, type ScoreSignal, type ScoringInput } from './scoring';
import { chooseModel, type ModelRequest, type RouteReason } from './choose';
import { droppedParams } from './dropped-params';
import { unknownPlan } from './errors';

export interface RouteInput extends ScoringInput, ModelRequest {
  planTier: string;
  /** Top-level body fields present in the request. */
  parameters: readonly string[];
}

export interface RouteDecision {
  model: CatalogModel;
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
  route(input: RouteInput): RouteDecision;
}

/** The router scores into fixed tiers; a catalog with other tiers cannot be routed. */
function assertScoredTiers(catalog: Catalog): void {
  const same = catalog.tiers.length === SCORED_TIERS.length && catalog.tiers.every((tier, index) => tier === SCORED_TIERS[index]);
  if (!same) {
    throw new CatalogError(
      `catalog tiers: must be ${SCORED_TIERS.join(', ')} in this order (the tiers the router scores into); got ${catalog.tiers.join(', ')}`,
    );
  }
}

/** Binds the routing rules to one loaded catalog; fails at start when the catalog cannot be routed. */
export function createRouter(catalog: Catalog): Router {
  assertScoredTiers(catalog);
  const modelIds = [...catalog.models.keys()];
  return {
    route(input) {
      const plan = catalog.plans.get(input.planTier);
      if (!plan) throw unknownPlan(input.planTier, catalog.version);
      const score = scoreRequest(input);
      const tier = catalog.tiers[Math.min(catalog.tierRank(score.tier), plan.ceilingRank)] ?? plan.ceilingTier;
      const { model, reason } = chooseModel(catalog, plan, input, tier, modelIds);
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
