import type { Catalog, CatalogModel, CatalogPlan } from '@gateway/lib/catalog';
import { DomainError } from '@gateway/lib/errors';
import type { MicroUsd } from '@gateway/lib/money';
import { costMicros, type TokenCounts } from './cost';

/** The model name that asks the router to choose. */
export const AUTO_MODEL = 'auto';

export type BaselineReasonName = 'named' | 'plan_ceiling';

export interface Baseline {
  model: string;
  reason: BaselineReasonName;
  costMicros: MicroUsd;
}

export interface PriceInput extends TokenCounts {
  servedModel: string;
  /** The body's `model`: a catalog id or `auto`. */
  requestedModel: string;
  planTier: string;
  /** The tier the router reported, for the tier-level savings estimate. */
  tier: string;
}

export interface PriceResult {
  /** False when the served model is not in the catalog: the cost is unknown, not zero. */
  priced: boolean;
  costMicros: MicroUsd;
  baseline: Baseline | undefined;
  /** baseline cost - cost, the true difference (negative when the served model costs more); 0 without a baseline. */
  savingsMicros: MicroUsd;
  savingsEstimatePct: number;
}

function planOf(catalog: Catalog, planTier: string): CatalogPlan {
  const plan = catalog.plans.get(planTier);
  if (plan) return plan;
  throw new DomainError('internal', "The credential's plan is not configured. Report it with the request id.", {
    internalReason: `plan tier ${JSON.stringify(planTier)} is not in catalog version ${catalog.version}`,
  });
}

/**
 * What a saving is measured against: a named catalog model is its own
 * baseline; `auto` is measured against the plan ceiling's model; anything
 * else (which routing never lets through) has none.
 */
function baselineModel(catalog: Catalog, plan: CatalogPlan, requestedModel: string): { model: CatalogModel; reason: BaselineReasonName } | undefined {
  if (requestedModel === AUTO_MODEL) {
    const ceilingId = plan.tierModels.get(plan.ceilingTier);
    const model = ceilingId === undefined ? undefined : catalog.models.get(ceilingId);
    return model && { model, reason: 'plan_ceiling' };
  }
  const model = catalog.models.get(requestedModel);
  return model && { model, reason: 'named' };
}

/** Prices one request from its token counts, with its baseline and savings. */
export function priceRequest(catalog: Catalog, input: PriceInput): PriceResult {
  const plan = planOf(catalog, input.planTier);
  const savingsEstimatePct = plan.savingsEstimatePct.get(input.tier) ?? 0;
  const served = catalog.models.get(input.servedModel);
  if (!served) return { priced: false, costMicros: 0n, baseline: undefined, savingsMicros: 0n, savingsEstimatePct };

  const cost = costMicros(served, input);
  const measuredAgainst = baselineModel(catalog, plan, input.requestedModel);
  if (!measuredAgainst) return { priced: true, costMicros: cost, baseline: undefined, savingsMicros: 0n, savingsEstimatePct };

  const baselineCost = measuredAgainst.model === served ? cost : costMicros(measuredAgainst.model, input);
  return {
    priced: true,
    costMicros: cost,
    baseline: { model: measuredAgainst.model.id, reason: measuredAgainst.reason, costMicros: baselineCost },
    savingsMicros: baselineCost - cost,
    savingsEstimatePct,
  };
}
