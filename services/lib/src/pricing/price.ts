import { DomainError } from '../errors';
import type { MicroUsd } from '../money';
import { costMicros, type TokenCounts } from './cost';
import type { ModelPrice, PlanPricing, PriceBook } from './price-book';

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

function planOf(book: PriceBook, planTier: string): PlanPricing {
  const plan = book.plans.get(planTier);
  if (plan) return plan;
  throw new DomainError('internal', "The credential's plan is not configured. Report it with the request id.", {
    internalReason: `plan tier ${JSON.stringify(planTier)} is not in price list ${book.version}`,
  });
}

/**
 * What a saving is measured against: a named catalog model is its own
 * baseline; `auto` is measured against the plan ceiling's model; anything
 * else (which routing never lets through) has none.
 */
function baselineModel(book: PriceBook, plan: PlanPricing, requestedModel: string): { id: string; model: ModelPrice; reason: BaselineReasonName } | undefined {
  const [id, reason]: [string | undefined, BaselineReasonName] = requestedModel === AUTO_MODEL ? [plan.ceilingModel, 'plan_ceiling'] : [requestedModel, 'named'];
  const model = id === undefined ? undefined : book.models.get(id);
  return model && id !== undefined ? { id, model, reason } : undefined;
}

/**
 * Prices one request from its token counts, with its baseline and savings:
 * the one implementation, behind pricing's `Price` and edge's local pricing.
 */
export function priceRequest(book: PriceBook, input: PriceInput): PriceResult {
  const plan = planOf(book, input.planTier);
  const savingsEstimatePct = plan.savingsEstimatePct.get(input.tier) ?? 0;
  const served = book.models.get(input.servedModel);
  if (!served) return { priced: false, costMicros: 0n, baseline: undefined, savingsMicros: 0n, savingsEstimatePct };

  const cost = costMicros(served, input);
  const measuredAgainst = baselineModel(book, plan, input.requestedModel);
  if (!measuredAgainst) return { priced: true, costMicros: cost, baseline: undefined, savingsMicros: 0n, savingsEstimatePct };

  const baselineCost = measuredAgainst.model === served ? cost : costMicros(measuredAgainst.model, input);
  return {
    priced: true,
    costMicros: cost,
    baseline: { model: measuredAgainst.id, reason: measuredAgainst.reason, costMicros: baselineCost },
    savingsMicros: baselineCost - cost,
    savingsEstimatePct,
  };
}
